/**
 * Context resolution for generators (spec aeraki-core.md 6.4, with deviations D4 and D6): the VirtualService,
 * DestinationRule and MetaRouter of a ServiceEntry are looked up through the view's FQDN-normalised host indexes
 * on `hosts[0]` in the ServiceEntry's namespace; native Dubbo ports also get the DubboAuthorizationPolicies of
 * that namespace and of the root namespace (D15); every port gets the ports its workloads receive it on (D16);
 * gateway contexts pair each MetaProtocol server of a Gateway with the oldest bound MetaRouter routing to that
 * server's port.
 */
import type { GatewayContext, SidecarContext } from '../model/generator.ts';
import { gatewayPortClaims } from '../model/conflicts/gateway-routers.ts';
import type { DubboAuthorizationPolicy, Gateway, ServiceEntry } from '../model/objects.ts';
import { compareByName } from '../model/order.ts';
import { detectProtocol } from '../model/protocol.ts';
import type { RedisContext } from '../model/redis-context.ts';
import type { ConfigView } from '../model/view.ts';
import { inboundPortsOf } from './inbound-ports.ts';

/** The Redis inputs of `se` (fixtures README, "Redis"): all in its namespace, hosts compared exactly. */
export function redisContext(view: ConfigView, se: ServiceEntry): RedisContext {
  const ns = se.metadata.namespace;
  let service: RedisContext['service'];
  let serviceHost = '';
  for (const host of se.spec.hosts) {
    const named = view.exactHostObjects('RedisService', ns, host);
    if (named.length > 0) {
      service = named[named.length - 1];
      serviceHost = host;
      break;
    }
  }
  let destination: RedisContext['destination'];
  for (const host of se.spec.hosts) {
    const candidate = view.exactHostObjects('RedisDestination', ns, host)[0];
    if (candidate && (!destination || compareByName(candidate, destination) < 0)) destination = candidate;
  }
  return {
    service,
    serviceHost,
    destination,
    secret: (name) => view.get('Secret', ns, name),
    portsOfHost: (host) => view.exactHostObjects('ServiceEntry', ns, host)[0]?.spec.ports,
  };
}

/** One context per port of `se` whose name selects a protocol (hosts[0] must exist; the caller checks). */
export function sidecarContexts(view: ConfigView, se: ServiceEntry, host: string): SidecarContext[] {
  const { virtualService, destinationRule, metaRouter } = view.configForHost(host, se.metadata.namespace);
  const mesh = view.mesh();
  const codecFor = (applicationProtocol: string) => view.codecFor(applicationProtocol);
  const out: SidecarContext[] = [];
  let policies: readonly DubboAuthorizationPolicy[] | undefined;
  let redis: RedisContext | undefined;
  se.spec.ports.forEach((port, portIndex) => {
    const protocol = detectProtocol(port.name);
    if (protocol === undefined) return;
    const authz = protocol === 'dubbo' ? (policies ??= dubboPolicies(view, se.metadata.namespace)) : [];
    if (protocol === 'redis') redis ??= redisContext(view, se);
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
      ...(authz.length > 0 ? { dubboAuthorizationPolicies: authz } : {}),
      mesh,
      codecFor,
      ...(protocol === 'redis' && redis ? { redis } : {}),
    });
  });
  return out;
}

/** The DubboAuthorizationPolicies of `namespace` and of the root namespace (D15), by namespace, then name. */
function dubboPolicies(view: ConfigView, namespace: string): readonly DubboAuthorizationPolicy[] {
  const own = view.dubboAuthorizationPolicies(namespace);
  if (namespace === view.rootNamespace) return own;
  const mesh = view.dubboAuthorizationPolicies(view.rootNamespace);
  if (mesh.length === 0) return own;
  return [...own, ...mesh].sort(compareByName);
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
    if (detectProtocol(server.port.name) !== 'metaprotocol') return;
    const [metaRouter] = gatewayPortClaims(view, gw, server.port.number);
    if (metaRouter === undefined) return;
    out.push({ mode: 'gateway', gateway: gw, server, serverIndex, metaRouter, mesh, codecFor });
  });
  return out;
}
