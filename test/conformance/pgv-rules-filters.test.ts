// The protoc-gen-validate rules of protos-2026 through xdsProblems on Envoy's RouteConfiguration and the waypoint's
// network filters and route types (dubbo_proxy drds, thrift_proxy trds, redis_proxy, zookeeper_proxy, rbac,
// local_ratelimit, set_filter_state, the MetaProtocol proxy as a TypedStruct): for each rule kind an input that
// breaks it and one that keeps it (pgv-support.ts runCases).
import {
  type Case,
  any,
  dubbo,
  FC0,
  hits,
  LISTENER,
  listener,
  meta,
  NET,
  net,
  R0,
  redis,
  ROUTES,
  routes,
  sfs,
  zk,
  runCases,
} from './pgv-support.ts';

const CASES: readonly Case[] = [
  {
    what: 'string.pattern: path_separated_prefix ending in /',
    type: ROUTES,
    bad: routes({ match: { path_separated_prefix: '/api/' }, route: { cluster: 'c' } }),
    broken: [`${R0}.match.path_separated_prefix string.pattern`],
    good: routes({ match: { path_separated_prefix: '/api' }, route: { cluster: 'c' } }),
  },
  {
    what: 'string.prefix/suffix with ignore_empty: a hits_addend format',
    type: ROUTES,
    bad: routes({ route: { cluster: 'c' } }, { rate_limits: [hits('BYTES')] }),
    broken: [
      '$.virtual_hosts[0].rate_limits[0].hits_addend.format string.prefix',
      '$.virtual_hosts[0].rate_limits[0].hits_addend.format string.suffix',
    ],
    good: routes({ route: { cluster: 'c' } }, { rate_limits: [hits(''), hits('%BYTES_RECEIVED%')] }),
  },
  {
    what: 'repeated.unique and repeated.items: response_headers_to_copy',
    type: ROUTES,
    bad: routes({
      route: { cluster: 'c', internal_redirect_policy: { response_headers_to_copy: ['x-a', 'x-a', 'x\rb'] } },
    }),
    broken: [
      `${R0}.route.internal_redirect_policy.response_headers_to_copy[1] repeated.unique`,
      `${R0}.route.internal_redirect_policy.response_headers_to_copy[2] repeated.items.string.well_known_regex`,
    ],
    good: routes({
      route: { cluster: 'c', internal_redirect_policy: { response_headers_to_copy: ['x-a', 'x-b'] } },
    }),
  },
  {
    what: 'string.in: scheme_to_overwrite ftp',
    type: 'envoy.config.core.v3.SchemeHeaderTransformation',
    bad: { scheme_to_overwrite: 'ftp' },
    broken: ['$.scheme_to_overwrite string.in'],
    good: { scheme_to_overwrite: 'https' },
  },
  {
    what: 'repeated.items string.in: an unknown response flag',
    type: 'envoy.config.accesslog.v3.AccessLogFilter',
    bad: { response_flag_filter: { flags: ['UF', 'XX'] } },
    broken: ['$.response_flag_filter.flags[1] repeated.items.string.in'],
    good: { response_flag_filter: { flags: ['UF', 'UH'] } },
  },
  {
    what: 'message.required and oneof: a dubbo route without and with an empty action',
    type: `${NET}.dubbo_proxy.v3.MultipleRouteConfiguration`,
    bad: { name: 'r', route_config: [dubbo({}).route_config[0], dubbo({ route: {} }).route_config[0]] },
    broken: [
      '$.route_config[0].routes[0].route message.required',
      '$.route_config[1].routes[0].route oneof cluster_specifier',
    ],
    good: dubbo({ route: { cluster: 'outbound|20880||a.ns.svc.cluster.local' } }),
  },
  {
    what: 'thrift routes: oneof match_specifier and uint32.gte on a weight wrapper',
    type: `${NET}.thrift_proxy.v3.RouteConfiguration`,
    bad: {
      name: 'r',
      routes: [{ match: {}, route: { weighted_clusters: { clusters: [{ name: 'a', weight: 0 }] } } }],
    },
    broken: [
      '$.routes[0].match oneof match_specifier',
      '$.routes[0].route.weighted_clusters.clusters[0].weight uint32.gte',
    ],
    good: {
      name: 'r',
      routes: [
        {
          match: { method_name: 'm' },
          route: { weighted_clusters: { clusters: [{ name: 'a', weight: 1 }] } },
        },
      ],
    },
  },
  {
    what: 'redis_proxy: settings required, string.max_bytes on a prefix, duration.required',
    type: LISTENER,
    bad: listener([
      redis({ prefix_routes: { routes: [{ prefix: 'a'.repeat(1001), cluster: 'c' }] } }),
      redis({ settings: {} }),
    ]),
    broken: [
      `${FC0}.filters[0].typed_config.settings message.required`,
      `${FC0}.filters[0].typed_config.prefix_routes.routes[0].prefix string.max_bytes`,
      `${FC0}.filters[1].typed_config.settings.op_timeout duration.required`,
    ],
    good: listener([
      redis({
        settings: { op_timeout: '5s' },
        prefix_routes: { routes: [{ prefix: 'a'.repeat(1000), cluster: 'c' }] },
      }),
    ]),
  },
  {
    what: 'zookeeper_proxy, rbac, local_ratelimit: their own rules',
    type: LISTENER,
    bad: listener([
      zk({ default_latency_threshold: '0s' }),
      net('rbac', 'rbac.v3.RBAC', { rules: {} }),
      net('local_ratelimit', 'local_ratelimit.v3.LocalRateLimit', {
        stat_prefix: 'l',
        token_bucket: { max_tokens: 0, fill_interval: '0s' },
      }),
    ]),
    broken: [
      `${FC0}.filters[0].typed_config.default_latency_threshold duration.gte`,
      `${FC0}.filters[1].typed_config.stat_prefix string.min_len`,
      `${FC0}.filters[2].typed_config.token_bucket.max_tokens uint32.gt`,
      `${FC0}.filters[2].typed_config.token_bucket.fill_interval duration.gt`,
    ],
    good: listener([
      zk({ default_latency_threshold: '0.1s' }),
      net('rbac', 'rbac.v3.RBAC', { stat_prefix: 'r', rules: {} }),
      net('local_ratelimit', 'local_ratelimit.v3.LocalRateLimit', {
        stat_prefix: 'l',
        token_bucket: { max_tokens: 1, fill_interval: '1s' },
      }),
    ]),
  },
  {
    what: 'set_filter_state: an empty object_key in a oneof, no value',
    type: LISTENER,
    bad: listener([sfs({ object_key: '', factory_key: 'envoy.string' })]),
    broken: [
      `${FC0}.filters[0].typed_config.on_new_connection[0].object_key string.min_len`,
      `${FC0}.filters[0].typed_config.on_new_connection[0] oneof value`,
    ],
    good: listener([
      sfs({
        object_key: 'io.istio.peer_principal',
        factory_key: 'envoy.string',
        format_string: {
          text_format_source: {
            inline_string: '%DYNAMIC_METADATA(envoy.filters.listener.proxy_protocol:peer_principal)%',
          },
        },
        shared_with_upstream: 'ONCE',
      }),
    ]),
  },
  {
    what: 'any.required, map.min_pairs: a matcher tree',
    type: 'xds.type.matcher.v3.Matcher',
    bad: { matcher_tree: { input: { name: 'port' }, exact_match_map: { map: {} } } },
    broken: [
      '$.matcher_tree.input.typed_config any.required',
      '$.matcher_tree.exact_match_map.map map.min_pairs',
    ],
    good: {
      matcher_tree: {
        input: { name: 'port', typed_config: any('google.protobuf.UInt32Value', { value: 1 }) },
        exact_match_map: {
          map: {
            '20880': {
              action: { name: 'a', typed_config: any('google.protobuf.StringValue', { value: 'x' }) },
            },
          },
        },
      },
    },
  },
  {
    what: 'TypedStruct: the MetaProtocol proxy value read as its type_url (string.min_len, string.min_bytes)',
    type: LISTENER,
    bad: listener([
      meta({
        stat_prefix: '',
        route_config: {
          name: 'r',
          routes: [{ route: { cluster: 'c', request_mirror_policies: [{ cluster: '' }] } }],
        },
      }),
    ]),
    broken: [
      `${FC0}.filters[0].typed_config.value.stat_prefix string.min_len`,
      `${FC0}.filters[0].typed_config.value.route_config.routes[0].route.request_mirror_policies[0].cluster string.min_bytes`,
    ],
    good: listener([
      meta({
        stat_prefix: 'm',
        route_config: {
          name: 'r',
          routes: [{ route: { cluster: 'c', request_mirror_policies: [{ cluster: 'm' }] } }],
        },
      }),
    ]),
  },
  {
    what: 'int32 gte/lte: a thrift field id',
    type: `${NET}.thrift_proxy.filters.payload_to_metadata.v3.PayloadToMetadata.FieldSelector`,
    bad: { name: 'f', id: 32768 },
    broken: ['$.id int32.gte/lte'],
    good: { name: 'f', id: -32768 },
  },
  {
    what: 'message.skip: a KeyValueAppend entry is not validated',
    type: 'envoy.config.core.v3.KeyValueAppend',
    bad: { record: { key: '' } },
    broken: ['$.record.key string.min_len'],
    good: { entry: { key: '' } },
  },
];

runCases('protoc-gen-validate rules on routes and network filters', CASES);
