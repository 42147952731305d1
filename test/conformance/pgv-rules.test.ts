// The protoc-gen-validate rules of protos-2026 (pgv-rules.ts) through xdsProblems, on real Envoy messages: for
// each rule kind that Listener, Cluster, ClusterLoadAssignment and Bootstrap (and the messages they reach) use, an
// input that breaks it (exactly the broken rules, at their JSON paths) and one that keeps it (no problem at all,
// strict parse included). Routes and the waypoint's network filters: pgv-rules-filters.test.ts; rule kinds no
// message of protos-2026 uses: pgv-values.test.ts; the inventory of rule kinds and the waypoint render fixtures:
// pgv-inventory.test.ts.
import {
  type Case,
  BOOTSTRAP,
  CLA,
  cluster,
  CLUSTER,
  endpoints,
  FC0,
  header,
  health,
  httpOptions,
  LISTENER,
  listener,
  pp,
  ROUTES,
  routes,
  tcp,
  TCP0,
  tcpTo,
  runCases,
} from './pgv-support.ts';

const CASES: readonly Case[] = [
  {
    what: 'string.min_len on an unset field: ClusterLoadAssignment without cluster_name',
    type: CLA,
    bad: {},
    broken: ['$.cluster_name string.min_len'],
    good: { cluster_name: 'outbound|20880||a.ns.svc.cluster.local' },
  },
  {
    what: 'string.min_len: a Cluster named ""',
    type: CLUSTER,
    bad: cluster({ name: '' }),
    broken: ['$.name string.min_len'],
    good: cluster({}),
  },
  {
    what: 'uint32 gte/lte on a wrapper: a filter chain for destination_port 70000',
    type: LISTENER,
    bad: listener([tcpTo({})], { destination_port: 70000 }),
    broken: [`${FC0}.filter_chain_match.destination_port uint32.gte/lte`],
    good: listener([tcpTo({})], { destination_port: 65535 }),
  },
  {
    what: 'uint32 gte/lte on a set wrapper holding 0',
    type: LISTENER,
    bad: listener([tcpTo({})], { destination_port: 0 }),
    broken: [`${FC0}.filter_chain_match.destination_port uint32.gte/lte`],
    good: listener([tcpTo({})], { destination_port: 1 }),
  },
  {
    what: 'repeated.items uint32: source_ports [0]',
    type: LISTENER,
    bad: listener([tcpTo({})], { source_ports: [0, 80] }),
    broken: [`${FC0}.filter_chain_match.source_ports[0] repeated.items.uint32.gte/lte`],
    good: listener([tcpTo({})], { source_ports: [1, 80] }),
  },
  {
    what: 'uint32.lte: an endpoint on port 70000',
    type: CLA,
    bad: endpoints(70000),
    broken: ['$.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.port_value uint32.lte'],
    good: endpoints(20880),
  },
  {
    what: 'uint32.lt and string.min_len inside an Any: proxy_protocol TLV 256 with an empty key',
    type: LISTENER,
    bad: pp({ tlv_type: 256, on_tlv_present: { key: '' } }),
    broken: [
      '$.listener_filters[0].typed_config.rules[0].tlv_type uint32.lt',
      '$.listener_filters[0].typed_config.rules[0].on_tlv_present.key string.min_len',
    ],
    good: pp({ tlv_type: 208, on_tlv_present: { key: 'peer_principal' } }),
  },
  {
    what: '(validate.required) oneof: tcp_proxy without a cluster',
    type: LISTENER,
    bad: listener([tcp({ stat_prefix: 's' })]),
    broken: [`${TCP0} oneof cluster_specifier`],
    good: listener([tcp({ stat_prefix: 's', cluster: 'c' })]),
  },
  {
    what: 'repeated.min_items: tcp_proxy weighted_clusters without clusters',
    type: LISTENER,
    bad: listener([tcp({ stat_prefix: 's', weighted_clusters: { clusters: [] } })]),
    broken: [`${TCP0}.weighted_clusters.clusters repeated.min_items`],
    good: listener([tcp({ stat_prefix: 's', weighted_clusters: { clusters: [{ name: 'a', weight: 1 }] } })]),
  },
  {
    what: 'uint32.gte on an unset scalar: a weighted cluster without weight',
    type: LISTENER,
    bad: listener([tcp({ stat_prefix: 's', weighted_clusters: { clusters: [{ name: 'a' }] } })]),
    broken: [`${TCP0}.weighted_clusters.clusters[0].weight uint32.gte`],
    good: listener([tcp({ stat_prefix: 's', weighted_clusters: { clusters: [{ name: 'a', weight: 3 }] } })]),
  },
  {
    what: 'repeated.max_items and duration.gte {nanos}: tcp_proxy',
    type: LISTENER,
    bad: listener([
      tcpTo({
        hash_policy: [{ source_ip: {} }, { source_ip: {} }],
        max_downstream_connection_duration: '0.0005s',
      }),
    ]),
    broken: [
      `${TCP0}.hash_policy repeated.max_items`,
      `${TCP0}.max_downstream_connection_duration duration.gte`,
    ],
    good: listener([
      tcpTo({ hash_policy: [{ source_ip: {} }], max_downstream_connection_duration: '0.001s' }),
    ]),
  },
  {
    what: 'duration.gt {}: connect_timeout 0s',
    type: CLUSTER,
    bad: cluster({ connect_timeout: '0s' }),
    broken: ['$.connect_timeout duration.gt'],
    good: cluster({ connect_timeout: '0.000000001s' }),
  },
  {
    what: 'duration gte/lt: stats_flush_interval 300s',
    type: BOOTSTRAP,
    bad: { stats_flush_interval: '300s' },
    broken: ['$.stats_flush_interval duration.gte/lt'],
    good: { stats_flush_interval: '299.999s' },
  },
  {
    what: 'bool.const in a oneof: stats_flush_on_admin false',
    type: BOOTSTRAP,
    bad: { stats_flush_on_admin: false },
    broken: ['$.stats_flush_on_admin bool.const'],
    good: { stats_flush_on_admin: true },
  },
  {
    what: 'duration.required, message.required on a wrapper, enum.not_in, strict HTTP_HEADER_VALUE: a health check',
    type: CLUSTER,
    bad: cluster({
      health_checks: [
        { interval: '5s', healthy_threshold: 1, http_health_check: { path: '/h\u0001', method: 'CONNECT' } },
      ],
    }),
    broken: [
      '$.health_checks[0].timeout duration.required',
      '$.health_checks[0].unhealthy_threshold message.required',
      '$.health_checks[0].http_health_check.path string.well_known_regex',
      '$.health_checks[0].http_health_check.method enum.not_in',
    ],
    good: cluster({ health_checks: [health({ timeout: '1s' })] }),
  },
  {
    what: 'enum.defined_only: a Cluster type 99',
    type: CLUSTER,
    bad: cluster({ type: 99 }),
    broken: ['$.type enum.defined_only'],
    good: cluster({ type: 3 }),
  },
  {
    what: 'double gte/lte on a wrapper: preconnect ratio 5',
    type: CLUSTER,
    bad: cluster({ preconnect_policy: { per_upstream_preconnect_ratio: 5 } }),
    broken: ['$.preconnect_policy.per_upstream_preconnect_ratio double.gte/lte'],
    good: cluster({ preconnect_policy: { per_upstream_preconnect_ratio: 1.5 } }),
  },
  {
    what: 'uint64.lte on a wrapper given as a string',
    type: CLUSTER,
    bad: cluster({ lb_policy: 'RING_HASH', ring_hash_lb_config: { minimum_ring_size: '8388609' } }),
    broken: ['$.ring_hash_lb_config.minimum_ring_size uint64.lte'],
    good: cluster({ lb_policy: 'RING_HASH', ring_hash_lb_config: { minimum_ring_size: '8388608' } }),
  },
  {
    what: 'map.keys string.min_len: filter_metadata under ""',
    type: CLUSTER,
    bad: cluster({ metadata: { filter_metadata: { '': {} } } }),
    broken: ['$.metadata.filter_metadata[""] map.keys.string.min_len'],
    good: cluster({ metadata: { filter_metadata: { istio: {} } } }),
  },
  {
    what: 'strict HTTP_HEADER_NAME with ignore_empty, inside a map value Any',
    type: CLUSTER,
    bad: cluster({ typed_extension_protocol_options: { h: httpOptions('x host') } }),
    broken: [
      '$.typed_extension_protocol_options.h.upstream_http_protocol_options.override_auto_sni_header string.well_known_regex',
    ],
    good: cluster({ typed_extension_protocol_options: { h: httpOptions('') } }),
  },
  {
    what: 'non-strict HTTP_HEADER_NAME (no CR, LF, NUL) and bytes.max_len: response headers',
    type: ROUTES,
    bad: routes(
      { route: { cluster: 'c' } },
      {},
      {
        response_headers_to_add: [
          header('x-a\n', 'v'),
          { header: { key: 'x-b', raw_value: Buffer.alloc(16385).toString('base64') } },
        ],
      },
    ),
    broken: [
      '$.response_headers_to_add[0].header.key string.well_known_regex',
      '$.response_headers_to_add[1].header.raw_value bytes.max_len',
    ],
    good: routes(
      { route: { cluster: 'c' } },
      {},
      { response_headers_to_add: [header('x a', 'v'), { header: { key: 'x-b', raw_value: 'AAE=' } }] },
    ),
  },
];

runCases('protoc-gen-validate rules on Listener, Cluster, ClusterLoadAssignment, Bootstrap', CASES);
