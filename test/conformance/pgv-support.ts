// Builders of real Envoy resources (proto3 JSON, as the waypoint sends them) and the harness of the
// protoc-gen-validate rule cases (pgv-rules.test.ts, pgv-rules-filters.test.ts): each case has an input that breaks
// exactly the listed rules at their JSON paths and one that passes xdsProblems whole (strict parse included).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { xdsProblems } from './xds-check.ts';

export const NET = 'envoy.extensions.filters.network';
export const any = (type: string, body: object) => ({ '@type': `type.googleapis.com/${type}`, ...body });
export const filter = (name: string, type: string, body: object) => ({ name, typed_config: any(type, body) });
export const tcp = (body: object) =>
  filter('envoy.filters.network.tcp_proxy', `${NET}.tcp_proxy.v3.TcpProxy`, body);
export const tcpTo = (body: object) => tcp({ stat_prefix: 's', cluster: 'c', ...body });
export const cluster = (extra: object) => ({
  name: 'outbound|20880||a.ns.svc.cluster.local',
  type: 'EDS',
  eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } },
  connect_timeout: '10s',
  ...extra,
});
export const listener = (filters: object[], match: object = {}, extra: object = {}) => ({
  name: 'proxy_protocol_inbound',
  address: { socket_address: { address: '0.0.0.0', port_value: 15088 } },
  filter_chains: [{ filter_chain_match: { destination_port: 20880, ...match }, filters }],
  ...extra,
});
export const endpoints = (port: number) => ({
  cluster_name: 'c',
  endpoints: [
    {
      lb_endpoints: [
        { endpoint: { address: { socket_address: { address: '10.0.0.1', port_value: port } } } },
      ],
    },
  ],
});
export const routes = (route: object, vhost: object = {}, extra: object = {}) => ({
  name: 'r',
  virtual_hosts: [{ name: 'v', domains: ['*'], routes: [{ match: { prefix: '/' }, ...route }], ...vhost }],
  ...extra,
});
export const pp = (rule: object) =>
  listener(
    [tcpTo({})],
    {},
    {
      listener_filters: [
        filter(
          'envoy.filters.listener.proxy_protocol',
          'envoy.extensions.filters.listener.proxy_protocol.v3.ProxyProtocol',
          {
            rules: [rule],
          },
        ),
      ],
    },
  );
export const dubbo = (route: object) => ({
  name: 'r',
  route_config: [{ name: 'a', routes: [{ match: { method: { name: { exact: 'sayHello' } } }, ...route }] }],
});
export const health = (extra: object) => ({
  interval: '5s',
  healthy_threshold: 1,
  unhealthy_threshold: 1,
  http_health_check: { path: '/healthz', method: 'GET' },
  ...extra,
});

/** The broken rules among xdsProblems, as `<path> <rule>`; any other problem stays whole (and fails a case). */
export function broken(type: string, json: unknown): string[] {
  return xdsProblems(`type.googleapis.com/${type}`, json).map((p) => {
    const rule = /^(\S+): .*\(\(validate\.rules\)\.([\w./]+)\)$/.exec(p);
    if (rule !== null) return `${rule[1]} ${rule[2]}`;
    const oneof = /^(\S+): .*\(oneof (\w+), \(validate\.required\)\)$/.exec(p);
    return oneof !== null ? `${oneof[1]} oneof ${oneof[2]}` : p;
  });
}

export interface Case {
  readonly what: string;
  readonly type: string;
  readonly bad: unknown;
  readonly broken: readonly string[];
  readonly good: unknown;
}

export const LISTENER = 'envoy.config.listener.v3.Listener';
export const CLUSTER = 'envoy.config.cluster.v3.Cluster';
export const CLA = 'envoy.config.endpoint.v3.ClusterLoadAssignment';
export const ROUTES = 'envoy.config.route.v3.RouteConfiguration';
export const BOOTSTRAP = 'envoy.config.bootstrap.v3.Bootstrap';
export const FC0 = '$.filter_chains[0]';
export const TCP0 = `${FC0}.filters[0].typed_config`;
export const R0 = '$.virtual_hosts[0].routes[0]';

export function httpOptions(sni: string) {
  return any('envoy.extensions.upstreams.http.v3.HttpProtocolOptions', {
    upstream_http_protocol_options: { override_auto_sni_header: sni },
    explicit_http_config: { http2_protocol_options: {} },
  });
}
export function header(key: string, value: string) {
  return { header: { key, value } };
}
export function hits(format: string) {
  return { actions: [{ generic_key: { descriptor_value: 'x' } }], hits_addend: { format } };
}
export function net(short: string, type: string, body: object) {
  return filter(`envoy.filters.network.${short}`, `${NET}.${type}`, body);
}
export function redis(body: object) {
  return net('redis_proxy', 'redis_proxy.v3.RedisProxy', { stat_prefix: 'r', ...body });
}
export function zk(body: object) {
  return net('zookeeper_proxy', 'zookeeper_proxy.v3.ZooKeeperProxy', { stat_prefix: 'z', ...body });
}
export function sfs(entry: object) {
  return net('set_filter_state', 'set_filter_state.v3.Config', { on_new_connection: [entry] });
}
export function meta(value: object) {
  return {
    name: 'envoy.filters.network.meta_protocol_proxy',
    typed_config: any('xds.type.v3.TypedStruct', {
      type_url: 'type.googleapis.com/aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy',
      value: { protocol: { name: 'dubbo', codec: { name: 'aeraki.meta_protocol.codec.dubbo' } }, ...value },
    }),
  };
}

/** Each case: its bad input breaks exactly its rules, its good input has no problem at all. */
export function runCases(title: string, cases: readonly Case[]): void {
  describe(title, () => {
    for (const c of cases) {
      it(`${c.what}: broken`, () => assert.deepEqual(broken(c.type, c.bad), c.broken));
      it(`${c.what}: kept`, () => assert.deepEqual(broken(c.type, c.good), []));
    }
  });
}
