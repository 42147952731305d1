// Hand-made waypoint contributions in the shapes of the issue-39 brief (the listener template, one chain per service
// address and port with the set_filter_state sandwich filter first, clusters over EDS, endpoints, drds/trds routes),
// for the ADS tests. snake_case keys, as the plugins' builders write them.
import {
  CLUSTER_TYPE,
  DUBBO_ROUTE_TYPE,
  ENDPOINT_TYPE,
  THRIFT_ROUTE_TYPE,
  type ProtoJson,
  type ServiceContribution,
  type XdsResource,
} from '../../src/model/ambient/xds.ts';

const T = 'type.googleapis.com/';
const ADS_SOURCE = { ads: {}, resource_api_version: 'V3' };

export const LISTENER_TEMPLATE: ProtoJson = {
  name: 'proxy_protocol_inbound',
  address: { socket_address: { address: '0.0.0.0', port_value: 15088 } },
  listener_filters: [
    {
      name: 'envoy.filters.listener.proxy_protocol',
      typed_config: {
        '@type': `${T}envoy.extensions.filters.listener.proxy_protocol.v3.ProxyProtocol`,
        rules: [{ tlv_type: 208, on_tlv_present: { key: 'peer_principal' } }],
      },
    },
  ],
};

export const SET_FILTER_STATE: ProtoJson = {
  name: 'proxy_protocol_authority',
  typed_config: {
    '@type': `${T}envoy.extensions.filters.network.set_filter_state.v3.Config`,
    on_new_connection: [
      {
        object_key: 'io.istio.peer_principal',
        factory_key: 'envoy.string',
        format_string: {
          text_format_source: {
            inline_string: '%DYNAMIC_METADATA(envoy.filters.listener.proxy_protocol:peer_principal)%',
          },
        },
        shared_with_upstream: 'ONCE',
      },
    ],
  },
};

export function clusterName(host: string, port: number, subset = ''): string {
  return `outbound|${port}|${subset}|${host}`;
}

function chain(host: string, port: number, addresses: readonly string[], filters: ProtoJson[]): ProtoJson {
  return {
    name: `${host}_${port}`,
    filter_chain_match: {
      destination_port: port,
      prefix_ranges: addresses.map((a) => ({ address_prefix: a, prefix_len: a.includes(':') ? 128 : 32 })),
    },
    filters: [SET_FILTER_STATE, ...filters],
  };
}

function cluster(name: string): XdsResource {
  return {
    typeUrl: CLUSTER_TYPE,
    name,
    json: { name, type: 'EDS', eds_cluster_config: { eds_config: ADS_SOURCE }, connect_timeout: '10s' },
  };
}

function endpoints(name: string, port: number, ips: readonly string[]): XdsResource {
  return {
    typeUrl: ENDPOINT_TYPE,
    name,
    json: {
      cluster_name: name,
      endpoints: [
        {
          lb_endpoints: ips.map((ip) => ({
            endpoint: { address: { socket_address: { address: ip, port_value: port } } },
          })),
        },
      ],
    },
  };
}

function tcpProxy(cluster: string): ProtoJson {
  return {
    name: 'envoy.filters.network.tcp_proxy',
    typed_config: {
      '@type': `${T}envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy`,
      stat_prefix: cluster,
      cluster,
      idle_timeout: '0.5s',
    },
  };
}

/** Dubbo through dubbo_proxy with drds, behind RBAC on the peer principal and a local rate limit. */
export function dubbo(
  host: string,
  vip: string,
  podIps: readonly string[],
  subset = 'v1',
): ServiceContribution {
  const port = 20880;
  const route = `${host}_${port}`;
  const c = clusterName(host, port, subset);
  return {
    chains: [
      chain(
        host,
        port,
        [vip],
        [
          {
            name: 'envoy.filters.network.rbac',
            typed_config: {
              '@type': `${T}envoy.extensions.filters.network.rbac.v3.RBAC`,
              stat_prefix: 'dubbo_rbac',
              rules: {
                action: 'ALLOW',
                policies: {
                  'ns/allow-orders': {
                    permissions: [{ any: true }],
                    principals: [
                      {
                        filter_state: {
                          key: 'io.istio.peer_principal',
                          string_match: { exact: 'spiffe://cluster.local/ns/shop/sa/orders' },
                        },
                      },
                    ],
                  },
                },
              },
            },
          },
          {
            name: 'envoy.filters.network.local_ratelimit',
            typed_config: {
              '@type': `${T}envoy.extensions.filters.network.local_ratelimit.v3.LocalRateLimit`,
              stat_prefix: 'dubbo_rl',
              token_bucket: { max_tokens: 100, tokens_per_fill: 10, fill_interval: '1s' },
            },
          },
          {
            name: 'envoy.filters.network.dubbo_proxy',
            typed_config: {
              '@type': `${T}envoy.extensions.filters.network.dubbo_proxy.v3.DubboProxy`,
              stat_prefix: route,
              drds: { config_source: ADS_SOURCE, route_config_name: route },
              dubbo_filters: [
                {
                  name: 'envoy.filters.dubbo.router',
                  config: { '@type': `${T}envoy.extensions.filters.network.dubbo_proxy.router.v3.Router` },
                },
              ],
            },
          },
        ],
      ),
    ],
    resources: [
      cluster(c),
      endpoints(c, port, podIps),
      {
        typeUrl: DUBBO_ROUTE_TYPE,
        name: route,
        json: {
          name: route,
          route_config: [
            {
              name: route,
              interface: 'org.apache.dubbo.samples.DemoService',
              routes: [{ match: { method: { name: { exact: 'sayHello' } } }, route: { cluster: c } }],
            },
          ],
        },
      },
    ],
  };
}

export function thrift(host: string, vip: string, podIps: readonly string[]): ServiceContribution {
  const port = 9090;
  const route = `${host}_${port}`;
  const c = clusterName(host, port);
  return {
    chains: [
      chain(
        host,
        port,
        [vip],
        [
          {
            name: 'envoy.filters.network.thrift_proxy',
            typed_config: {
              '@type': `${T}envoy.extensions.filters.network.thrift_proxy.v3.ThriftProxy`,
              stat_prefix: route,
              trds: { config_source: ADS_SOURCE, route_config_name: route },
              thrift_filters: [
                {
                  name: 'envoy.filters.thrift.router',
                  typed_config: {
                    '@type': `${T}envoy.extensions.filters.network.thrift_proxy.router.v3.Router`,
                  },
                },
              ],
            },
          },
        ],
      ),
    ],
    resources: [
      cluster(c),
      endpoints(c, port, podIps),
      {
        typeUrl: THRIFT_ROUTE_TYPE,
        name: route,
        json: { name: route, routes: [{ match: { method_name: '' }, route: { cluster: c } }] },
      },
    ],
  };
}

export function redis(host: string, vip: string, podIps: readonly string[]): ServiceContribution {
  const port = 6379;
  const c = clusterName(host, port);
  return {
    chains: [
      chain(
        host,
        port,
        [vip],
        [
          {
            name: 'envoy.filters.network.redis_proxy',
            typed_config: {
              '@type': `${T}envoy.extensions.filters.network.redis_proxy.v3.RedisProxy`,
              stat_prefix: 'redis',
              settings: { op_timeout: '0.5s' },
              prefix_routes: { catch_all_route: { cluster: c } },
            },
          },
        ],
      ),
    ],
    resources: [cluster(c), endpoints(c, port, podIps)],
  };
}

export function zookeeper(host: string, vip: string, podIps: readonly string[]): ServiceContribution {
  const port = 2181;
  const c = clusterName(host, port);
  return {
    chains: [
      chain(
        host,
        port,
        [vip],
        [
          {
            name: 'envoy.filters.network.zookeeper_proxy',
            typed_config: {
              '@type': `${T}envoy.extensions.filters.network.zookeeper_proxy.v3.ZooKeeperProxy`,
              stat_prefix: 'zk',
            },
          },
          tcpProxy(c),
        ],
      ),
    ],
    resources: [cluster(c), endpoints(c, port, podIps)],
  };
}

/** A MetaProtocol (tRPC) service: meta_protocol_proxy as a TypedStruct, its routes over ADS from the RDS server. */
export function metaProtocol(host: string, vip: string, podIps: readonly string[]): ServiceContribution {
  const port = 8000;
  const c = clusterName(host, port);
  return {
    chains: [
      chain(
        host,
        port,
        [vip],
        [
          {
            name: 'aeraki.meta_protocol_proxy',
            typed_config: {
              '@type': `${T}xds.type.v3.TypedStruct`,
              type_url: `${T}aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy`,
              value: {
                stat_prefix: `${host}_${port}`,
                rds: { config_source: ADS_SOURCE, route_config_name: `${host}_${port}` },
                protocol: { name: 'trpc', codec: { name: 'aeraki.meta_protocol.codec.trpc' } },
                meta_protocol_filters: [{ name: 'aeraki.meta_protocol.filters.router' }],
              },
            },
          },
        ],
      ),
    ],
    resources: [cluster(c), endpoints(c, port, podIps)],
  };
}

/** A Gateway with Dubbo, Thrift, Redis, ZooKeeper and MetaProtocol services (service keys `Service/ns/<name>`). */
export function gatewayServices(): Map<string, ServiceContribution> {
  return new Map<string, ServiceContribution>([
    [
      'Service/shop/dubbo',
      dubbo('dubbo.shop.svc.cluster.local', '10.96.0.10', ['10.244.0.10', '10.244.0.11']),
    ],
    ['Service/shop/thrift', thrift('thrift.shop.svc.cluster.local', '10.96.0.11', ['10.244.0.12'])],
    ['Service/shop/redis', redis('redis.shop.svc.cluster.local', '10.96.0.12', ['10.244.0.13'])],
    ['Service/shop/zk', zookeeper('zk.shop.svc.cluster.local', '10.96.0.13', ['10.244.0.14'])],
    ['Service/shop/trpc', metaProtocol('trpc.shop.svc.cluster.local', '10.96.0.14', ['10.244.0.15'])],
  ]);
}

export const META_ROUTE_NAME = 'trpc.shop.svc.cluster.local_8000';
