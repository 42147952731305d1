/**
 * Context resolution for generators (spec aeraki-core.md 6.4, with deviations D4 and D6): the VirtualService,
 * DestinationRule and MetaRouter of a ServiceEntry are looked up through the view's FQDN-normalised host indexes
 * on `hosts[0]` in the ServiceEntry's namespace; gateway contexts pair each MetaProtocol server of a Gateway with
 * each bound MetaRouter routing to that server's port.
 */
import type { GatewayContext, SidecarContext } from '../model/generator.ts';
import type { Gateway, MetaRouter, ServiceEntry, ServicePort } from '../model/objects.ts';
import { detectProtocol } from '../model/protocol.ts';
import type { ConfigView } from '../model/view.ts';

/** `view.codecFor` as a function of its own, for contexts: build it once per pass, not once per service. */
export function codecLookup(view: ConfigView): (applicationProtocol: string) => string | undefined {
  return (p) => view.codecFor(p);
}

/**
 * One context per port of `se` whose name selects a protocol (hosts[0] must exist; the caller checks).
 * `codecFor` is codecLookup(view), shared by every service of a pass.
 */
export function sidecarContexts(
  view: ConfigView,
  se: ServiceEntry,
  host: string,
  codecFor: (applicationProtocol: string) => string | undefined,
): SidecarContext[] {
  const ns = se.metadata.namespace;
  const { virtualService, destinationRule, metaRouter } = view.configForHost(host, ns);
  const mesh = view.mesh();
  const out: SidecarContext[] = [];
  const ports = se.spec.ports;
  for (let portIndex = 0; portIndex < ports.length; portIndex++) {
    const port = ports[portIndex] as ServicePort;
    const protocol = detectProtocol(port.name);
    if (protocol === undefined) continue;
    out.push({
      mode: 'sidecar',
      serviceEntry: se,
      port,
      portIndex,
      protocol,
      virtualService,
      destinationRule,
      metaRouter,
      mesh,
      codecFor,
    });
  }
  return out;
}

function routesToPort(mr: MetaRouter, port: number): boolean {
  return mr.spec.routes.some((r) => r.route.some((d) => d.destination.port?.number === port));
}

/** Contexts of one Gateway: MetaProtocol servers × bound MetaRouters with a route destination on the server port. */
export function gatewayContexts(view: ConfigView, gw: Gateway): GatewayContext[] {
  const bound = view.metaRoutersForGateway(gw.metadata.namespace, gw.metadata.name);
  if (bound.length === 0) return [];
  const mesh = view.mesh();
  const codecFor = codecLookup(view);
  const out: GatewayContext[] = [];
  gw.spec.servers.forEach((server, serverIndex) => {
    if (detectProtocol(server.port.name) !== 'metaprotocol') return;
    for (const metaRouter of bound) {
      if (!routesToPort(metaRouter, server.port.number)) continue;
      out.push({ mode: 'gateway', gateway: gw, server, serverIndex, metaRouter, mesh, codecFor });
    }
  });
  return out;
}
