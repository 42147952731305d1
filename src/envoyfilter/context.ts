/**
 * Context resolution for generators (spec aeraki-core.md 6.4, with deviations D4 and D6): the VirtualService,
 * DestinationRule and MetaRouter of a ServiceEntry are looked up through the view's FQDN-normalised host indexes
 * on `hosts[0]` in the ServiceEntry's namespace; every port gets the ports its workloads receive it on (D16), and
 * the ports of a generator with its own inputs get what its resolveContext finds (once per ServiceEntry); gateway
 * contexts pair each MetaProtocol server of a Gateway with the oldest bound MetaRouter routing to that server's
 * port.
 */
import type { Generator, GatewayContext, SidecarContext } from '../model/generator.ts';
import { gatewayPortClaims } from '../model/conflicts/gateway-routers.ts';
import type { Gateway, ServiceEntry } from '../model/objects.ts';
import { protocolSegment, selectsProtocol, type Protocol } from '../model/protocol.ts';
import type { ConfigView } from '../model/view.ts';
import { inboundPortsOf } from './inbound-ports.ts';

/**
 * One context per port of `se` whose name selects a protocol one of `generators` (by protocol) handles (hosts[0]
 * must exist; the caller checks); each generator resolves its own inputs for its ports.
 */
export function sidecarContexts(
  view: ConfigView,
  se: ServiceEntry,
  host: string,
  generators: ReadonlyMap<Protocol, Generator>,
): SidecarContext[] {
  const { virtualService, destinationRule, metaRouter } = view.configForHost(host, se.metadata.namespace);
  const mesh = view.mesh();
  const codecFor = (applicationProtocol: string) => view.codecFor(applicationProtocol);
  const out: SidecarContext[] = [];
  let extensions: Map<Generator, unknown> | undefined;
  se.spec.ports.forEach((port, portIndex) => {
    const protocol = protocolSegment(port.name);
    const generator = protocol !== undefined ? generators.get(protocol) : undefined;
    if (protocol === undefined || generator === undefined) return;
    let extension: unknown;
    if (generator.resolveContext !== undefined) {
      extensions ??= new Map();
      if (extensions.has(generator)) extension = extensions.get(generator);
      else {
        extension = generator.resolveContext(view, se);
        extensions.set(generator, extension);
      }
    }
    out.push({
      mode: 'sidecar',
      serviceEntry: se,
      port,
      portIndex,
      inboundPorts: inboundPortsOf(view, se, port),
      protocol,
      virtualService,
      destinationRule,
      metaRouter,
      mesh,
      codecFor,
      ...(extension !== undefined ? { extension } : {}),
    });
  });
  return out;
}

/**
 * Contexts of one Gateway: each MetaProtocol server with the MetaRouter that claims its port (gatewayPortClaims:
 * of several bound MetaRouters routing to the port, the oldest; the others get a conflict warning).
 */
export function gatewayContexts(view: ConfigView, gw: Gateway): GatewayContext[] {
  if (view.metaRoutersForGateway(gw.metadata.namespace, gw.metadata.name).length === 0) return [];
  const mesh = view.mesh();
  const codecFor = (applicationProtocol: string) => view.codecFor(applicationProtocol);
  const out: GatewayContext[] = [];
  gw.spec.servers.forEach((server, serverIndex) => {
    if (!selectsProtocol(server.port.name, 'metaprotocol')) return;
    const [metaRouter] = gatewayPortClaims(view, gw, server.port.number);
    if (metaRouter === undefined) return;
    out.push({ mode: 'gateway', gateway: gw, server, serverIndex, metaRouter, mesh, codecFor });
  });
  return out;
}
