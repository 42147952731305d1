// The world our own waypoint's translation is tested in: the real ConfigStore (config, ambient inputs and their
// events), an in-memory EndpointsView, and small generators of our own (the plugins' generateOwnWaypoint are tested
// with the plugins): `tcp-fake` routes over tcp_proxy to the subsets its VirtualService's tcp routes name, `tcp-rpc`
// over thrift_proxy with routes served by trds, `tcp-contrib` only on an Envoy contrib image.
import type { EndpointsOwner, EndpointsView, WorkloadEndpoint } from '../../src/model/ambient/endpoints.ts';
import { OWN_WAYPOINT_CLASS } from '../../src/model/ambient/own-waypoint.ts';
import type { WaypointGateway } from '../../src/model/ambient/waypoint.ts';
import {
  LISTENER_TYPE,
  THRIFT_ROUTE_TYPE,
  type ServiceContribution,
  type WaypointChange,
} from '../../src/model/ambient/xds.ts';
import type { Generator, OwnWaypointContext } from '../../src/model/generator.ts';
import type { ConvertedService, ServiceEntry, ServicePort } from '../../src/model/objects.ts';
import type { Protocol } from '../../src/model/protocol.ts';
import { fail, issue, ok, refOf, warning } from '../../src/model/result.ts';
import type { AmbientWrites } from '../../src/controller/store-ambient.ts';
import { WaypointTranslator } from '../../src/waypoint/incremental.ts';
import { assembleListener } from '../../src/waypoint/listener.ts';
import { xdsProblems } from '../conformance/xds-check.ts';
import { meta, serviceEntry, storeOf } from '../support/builders.ts';

export const USE = 'istio.io/use-waypoint';
export const USE_NS = 'istio.io/use-waypoint-namespace';
const TCP_PROXY_TYPE = 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy';
const THRIFT_PROXY_TYPE = 'type.googleapis.com/envoy.extensions.filters.network.thrift_proxy.v3.ThriftProxy';

/** The tcp_proxy of a chain, to the VirtualService's tcp destinations (weighted) or the service itself. */
function tcpProxy(ctx: OwnWaypointContext) {
  const routes = ctx.virtualService?.spec.tcp[0]?.route ?? [];
  const prefix = { stat_prefix: ctx.routeName };
  if (routes.length === 0) return { ...prefix, cluster: ctx.clusterOf() };
  const clusters = routes.map((r) => ({
    name: ctx.clusterOf(r.destination.subset, r.destination.host, r.destination.port?.number),
    weight: r.weight ?? 1,
  }));
  return { ...prefix, weighted_clusters: { clusters } };
}

export interface FakeGenerators {
  readonly byProtocol: ReadonlyMap<Protocol, Generator>;
  /** Services (`<ns>/<name>`) whose `tcp-fake` generation fails. */
  readonly failing: Set<string>;
  /** Every `tcp-fake` generation, `<ns>/<name>`, in order. */
  readonly calls: string[];
}

export function fakeGenerators(): FakeGenerators {
  const failing = new Set<string>();
  const calls: string[] = [];
  const fake: Generator = {
    name: 'fake',
    protocols: ['fake'],
    generateSidecar: () => ok([]),
    generateOwnWaypoint: (ctx) => {
      const se = ctx.serviceEntry;
      calls.push(`${se.metadata.namespace}/${se.metadata.name}`);
      if (failing.has(`${se.metadata.namespace}/${se.metadata.name}`)) {
        return fail([issue(refOf(se), `spec.ports[${ctx.portIndex}]`, 'fake failure')]);
      }
      const typed_config = { '@type': TCP_PROXY_TYPE, ...tcpProxy(ctx) };
      return ok({ filters: [{ name: 'envoy.filters.network.tcp_proxy', typed_config }] });
    },
  };
  const rpc: Generator = {
    name: 'rpc',
    protocols: ['rpc'],
    generateSidecar: () => ok([]),
    generateOwnWaypoint: (ctx) => {
      const trds = {
        config_source: { ads: {}, resource_api_version: 'V3' },
        route_config_name: ctx.routeName,
      };
      const typed_config = { '@type': THRIFT_PROXY_TYPE, stat_prefix: ctx.routeName, trds };
      const route = { match: { method_name: '' }, route: { cluster: ctx.clusterOf() } };
      const json = { name: ctx.routeName, routes: [route] };
      return ok({
        filters: [{ name: 'envoy.filters.network.thrift_proxy', typed_config }],
        routes: [{ typeUrl: THRIFT_ROUTE_TYPE, name: ctx.routeName, json }],
      });
    },
  };
  const contrib: Generator = {
    name: 'contrib',
    protocols: ['contrib'],
    generateSidecar: () => ok([]),
    generateOwnWaypoint: (ctx) => {
      if (ctx.image.kind !== 'envoy-contrib') {
        const why = `needs an Envoy contrib image, the waypoint runs ${ctx.image.ref}`;
        return ok(undefined, [warning(refOf(ctx.serviceEntry), `spec.ports[${ctx.portIndex}]`, why)]);
      }
      const typed_config = { '@type': TCP_PROXY_TYPE, stat_prefix: 'c', cluster: ctx.clusterOf() };
      return ok({ filters: [{ name: 'envoy.filters.network.tcp_proxy', typed_config }] });
    },
  };
  const byProtocol = new Map<Protocol, Generator>([
    ['fake', fake],
    ['rpc', rpc],
    ['contrib', contrib],
  ]);
  return { byProtocol, failing, calls };
}

/** An in-memory EndpointsView: `set` replaces one service port's endpoints and tells the subscribers. */
export class MemoryEndpoints implements EndpointsView {
  private readonly byKey = new Map<string, readonly WorkloadEndpoint[]>();
  private readonly listeners = new Set<(changed: readonly EndpointsOwner[]) => void>();

  endpointsOf(service: ServiceEntry, port: ServicePort): readonly WorkloadEndpoint[] {
    const { namespace, name } = service.metadata;
    return this.byKey.get(`${service.kind}/${namespace}/${name}/${port.number}`) ?? [];
  }

  subscribe(listener: (changed: readonly EndpointsOwner[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  synced(): boolean {
    return true;
  }

  set(owner: EndpointsOwner, port: number, endpoints: readonly WorkloadEndpoint[]): void {
    this.byKey.set(`${owner.kind}/${owner.namespace}/${owner.name}/${port}`, endpoints);
    for (const l of this.listeners) l([owner]);
  }
}

/** A Kubernetes Service as the store holds it (converted), with one cluster IP. */
export function kubeService(
  ns: string,
  name: string,
  ports: readonly ServicePort[],
  opts: { labels?: Record<string, string>; addresses?: string[] } = {},
): ConvertedService {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(ns, name, { labels: opts.labels ?? {} }),
    spec: { hosts: [`${name}.${ns}.svc.cluster.local`], addresses: opts.addresses ?? ['10.96.0.1'], ports },
  };
}

/** A Gateway of our class, addressed, with the one `proxy` listener admitting `from` namespaces. */
export function ownGateway(ns: string, name: string, extra: Partial<WaypointGateway> = {}): WaypointGateway {
  return {
    namespace: ns,
    name,
    className: OWN_WAYPOINT_CLASS,
    inboundBinding: 'PROXY/15088',
    addressed: true,
    listeners: [{ port: 15088, protocol: 'istio.io/PROXY', allowedNamespaces: { from: 'All' } }],
    ...extra,
  };
}

/** The one change of `gateway` in `changes`. */
export function changeOf(changes: readonly WaypointChange[], gateway: string): WaypointChange {
  const found = changes.find((c) => c.gateway === gateway);
  if (found === undefined)
    throw new Error(`no change of ${gateway} in ${changes.map((c) => c.gateway).join(', ')}`);
  return found;
}

/** The contribution of `service` in `change` (it must be there and defined). */
export function contributionOf(change: WaypointChange, service: string): ServiceContribution {
  const c = change.services.get(service);
  if (c === undefined)
    throw new Error(`no contribution of ${service}: ${[...change.services.keys()].join(', ')}`);
  return c;
}

export const ORDERS = 'orders.shop.svc.cluster.local';

/** Namespace shop opts in to waypoint shop/wp; other/billing and ServiceEntry ext/pay bind to it by their labels. */
export function world() {
  const store = storeOf([
    kubeService('shop', 'orders', [{ number: 20880, name: 'tcp-fake', protocol: 'TCP' }]),
    kubeService('shop', 'plain', [{ number: 20880, name: 'tcp-fake' }], { labels: { [USE]: 'none' } }),
    kubeService('other', 'billing', [{ number: 20880, name: 'tcp-fake' }], {
      labels: { [USE]: 'wp', [USE_NS]: 'shop' },
      addresses: ['10.96.0.7', 'fd00::7'],
    }),
    serviceEntry(
      'ext',
      'pay',
      {
        hosts: ['pay.example.com'],
        addresses: ['240.240.0.0/16'],
        ports: [{ number: 9090, name: 'tcp-rpc' }],
      },
      { labels: { [USE]: 'wp', [USE_NS]: 'shop' } },
    ),
  ]);
  const ambient: AmbientWrites = store.readsAmbient();
  ambient.set({ kind: 'Namespace', value: { name: 'shop', labels: { [USE]: 'wp' } } });
  ambient.set({ kind: 'KubernetesGateway', value: ownGateway('shop', 'wp') });
  const endpoints = new MemoryEndpoints();
  endpoints.set({ kind: 'Service', namespace: 'shop', name: 'orders' }, 20880, [
    { address: '10.1.0.1', port: 20880, labels: { version: 'v1' } },
    { address: '10.1.0.2', port: 20880, labels: { version: 'v2' } },
    { address: '10.1.0.3', port: 20880, labels: { version: 'v1' }, weight: 3 },
  ]);
  endpoints.set({ kind: 'ServiceEntry', namespace: 'ext', name: 'pay' }, 9090, [
    { address: '192.168.0.9', port: 9091, labels: {} },
  ]);
  const gens = fakeGenerators();
  const translator = new WaypointTranslator({
    view: store,
    ambient: store,
    endpoints,
    byProtocol: gens.byProtocol,
  });
  return { store, ambient, endpoints, gens, translator };
}

/** Every resource of `changes`, and each Gateway's Listener assembled from its template and chains, checked. */
export function problemsOf(changes: readonly WaypointChange[]): string[] {
  const out: string[] = [];
  for (const c of changes) {
    const contributions = new Map([...c.services].flatMap(([k, v]) => (v ? [[k, v] as const] : [])));
    for (const [k, v] of contributions) {
      for (const r of v.resources) out.push(...xdsProblems(r.typeUrl, r.json, `${k} ${r.name}`));
    }
    if (c.listener)
      out.push(...xdsProblems(LISTENER_TYPE, assembleListener(c.listener, contributions), c.gateway));
  }
  return out;
}
