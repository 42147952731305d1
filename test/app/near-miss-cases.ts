// The near-miss input table of near-miss-inputs.test.ts: misspelt fields at every depth (top of spec, nested,
// inside lists, inside maps) and values of the wrong type in each kind read strictly, near-miss kinds, and kinds
// nobody reads. Each case is one object alone in its file, so its stderr is exactly `lines` (an invalid object
// binds no ServiceEntry here, so nothing else is reported), whatever the command.

export type Raw = Record<string, unknown>;

export interface NearMissCase {
  readonly name: string;
  readonly object: Raw;
  /** The whole stderr of `render` and `validate`, line by line. */
  readonly lines: readonly string[];
}

const HOST = 'echo.rpc.svc.cluster.local';
const meta = { namespace: 'rpc', name: 'r' };

export const metaRouter = (): Raw => ({
  apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
  kind: 'MetaRouter',
  metadata: meta,
  spec: {
    hosts: [HOST],
    routes: [
      {
        name: 'v1',
        match: { attributes: { method: { exact: 'sayHello' } } },
        route: [{ destination: { host: HOST, subset: 'v1', port: { number: 20880 } }, weight: 100 }],
        mirror: { host: HOST, subset: 'v2' },
        mirrorPercentage: { value: 1 },
        requestMutation: [{ key: 'k', value: 'v' }],
        responseMutation: [{ key: 'k', value: 'v' }],
      },
    ],
    localRateLimit: {
      tokenBucket: { maxTokens: 10, tokensPerFill: 10, fillInterval: '60s' },
      conditions: [
        {
          match: { attributes: { method: { prefix: 'say' } } },
          tokenBucket: { maxTokens: 1, tokensPerFill: 1, fillInterval: '1s' },
        },
      ],
    },
    globalRateLimit: {
      match: { attributes: { method: { exact: 'sayHello' } } },
      domain: 'rpc',
      requestTimeout: '100ms',
      denyOnFail: true,
      rateLimitService: 'outbound|8081||rls.rpc.svc.cluster.local',
      descriptors: [{ property: 'method', descriptorKey: 'method' }],
    },
  },
});

export const applicationProtocol = (): Raw => ({
  apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
  kind: 'ApplicationProtocol',
  metadata: { name: 'trpc' },
  spec: { protocol: 'trpc', codec: 'aeraki.meta_protocol.codec.trpc' },
});

export const redisService = (): Raw => ({
  apiVersion: 'redis.aeraki.io/v1alpha1',
  kind: 'RedisService',
  metadata: { namespace: 'cache', name: 'rs' },
  spec: {
    host: ['redis.cache.svc.cluster.local'],
    settings: { opTimeout: '1s', auth: { plain: { password: 'p' } } },
    redis: [
      { match: { key: { prefix: 'u:' } }, route: { host: 'redis.cache.svc.cluster.local', port: 6379 } },
    ],
    faults: [{ type: 'DELAY', percentage: { value: 50 }, delay: '1s' }],
  },
});

export const redisDestination = (): Raw => ({
  apiVersion: 'redis.aeraki.io/v1alpha1',
  kind: 'RedisDestination',
  metadata: { namespace: 'cache', name: 'rd' },
  spec: {
    host: 'redis.cache.svc.cluster.local',
    trafficPolicy: {
      connectionPool: {
        tcp: { maxConnections: 10, connectTimeout: '1s', tcpKeepalive: { probes: 3 } },
        redis: { mode: 'CLUSTER', discoveryEndpoints: ['redis-0:6379'] },
      },
    },
  },
});

export const dubboPolicy = (): Raw => ({
  apiVersion: 'dubbo.aeraki.io/v1alpha1',
  kind: 'DubboAuthorizationPolicy',
  metadata: { namespace: 'rpc', name: 'p' },
  spec: { action: 'ALLOW', rules: [{ from: [{ source: { namespaces: ['rpc'] } }] }] },
});

/** `object` with the value at `path` (dotted, numeric segments index lists) changed by `edit` on its parent. */
function at(object: Raw, path: string, edit: (parent: Raw, key: string) => void): Raw {
  const copy = structuredClone(object);
  const keys = path.split('.');
  let cur: Raw = copy;
  for (const k of keys.slice(0, -1)) cur = cur[k] as Raw;
  edit(cur, keys[keys.length - 1]!);
  return copy;
}

/** The field at `path` renamed to `to` (the misspelling replaces the field, as a typo does). */
const rename = (object: Raw, path: string, to: string): Raw =>
  at(object, path, (parent, key) => {
    parent[to] = parent[key];
    delete parent[key];
  });

const set = (object: Raw, path: string, value: unknown): Raw =>
  at(object, path, (parent, key) => {
    parent[key] = value;
  });

const MR = 'error: MetaRouter rpc/r: ';
const AP = 'error: ApplicationProtocol trpc: ';
const RS = 'error: RedisService cache/rs: ';
const RD = 'error: RedisDestination cache/rd: ';

/** Unknown fields and wrong types: errors (exit 1 with or without --strict). */
export const FIELD_CASES: readonly NearMissCase[] = [
  {
    name: 'MetaRouter: top of spec',
    object: rename(metaRouter(), 'spec.routes', 'routs'),
    lines: [`${MR}spec.routs: unknown field; did you mean routes?`],
  },
  {
    name: 'MetaRouter: in a route (mirrorPercentag would mirror 100 %)',
    object: rename(metaRouter(), 'spec.routes.0.mirrorPercentage', 'mirrorPercentag'),
    lines: [`${MR}spec.routes[0].mirrorPercentag: unknown field; did you mean mirrorPercentage?`],
  },
  {
    name: 'MetaRouter: requestMutaton',
    object: rename(metaRouter(), 'spec.routes.0.requestMutation', 'requestMutaton'),
    lines: [`${MR}spec.routes[0].requestMutaton: unknown field; did you mean requestMutation?`],
  },
  {
    name: 'MetaRouter: in a mutation list entry',
    object: set(metaRouter(), 'spec.routes.0.responseMutation.0.op', 'set'),
    lines: [`${MR}spec.routes[0].responseMutation[0].op: unknown field`],
  },
  {
    name: 'MetaRouter: in a destination inside the route list',
    object: rename(metaRouter(), 'spec.routes.0.route.0.destination.subset', 'subet'),
    lines: [`${MR}spec.routes[0].route[0].destination.subet: unknown field; did you mean subset?`],
  },
  {
    name: 'MetaRouter: the reserved port name',
    object: set(metaRouter(), 'spec.routes.0.route.0.destination.port.name', 'dubbo'),
    lines: [`${MR}spec.routes[0].route[0].destination.port.name: unknown field`],
  },
  {
    name: 'MetaRouter: in a route destination',
    object: rename(metaRouter(), 'spec.routes.0.route.0.weight', 'wieght'),
    lines: [`${MR}spec.routes[0].route[0].wieght: unknown field; did you mean weight?`],
  },
  {
    name: 'MetaRouter: in the mirror',
    object: set(metaRouter(), 'spec.routes.0.mirror.percentage', 5),
    lines: [`${MR}spec.routes[0].mirror.percentage: unknown field`],
  },
  {
    name: 'MetaRouter: in a match',
    object: rename(metaRouter(), 'spec.routes.0.match.attributes', 'attribute'),
    lines: [`${MR}spec.routes[0].match.attribute: unknown field; did you mean attributes?`],
  },
  {
    name: 'MetaRouter: inside the attributes map',
    object: rename(metaRouter(), 'spec.routes.0.match.attributes.method.exact', 'exactly'),
    lines: [`${MR}spec.routes[0].match.attributes.method.exactly: unknown field; did you mean exact?`],
  },
  {
    name: 'MetaRouter: snake_case in a token bucket (its field then missing)',
    object: rename(metaRouter(), 'spec.localRateLimit.tokenBucket.fillInterval', 'fill_interval'),
    lines: [
      `${MR}spec.localRateLimit.tokenBucket.fill_interval: unknown field; did you mean fillInterval?`,
      `${MR}spec.localRateLimit.tokenBucket.fillInterval: required field is missing (a token bucket needs maxTokens, tokensPerFill and fillInterval)`,
    ],
  },
  {
    name: 'MetaRouter: in a rate limit condition',
    object: set(metaRouter(), 'spec.localRateLimit.conditions.0.burst', 3),
    lines: [`${MR}spec.localRateLimit.conditions[0].burst: unknown field`],
  },
  {
    name: 'MetaRouter: in the local rate limit',
    object: rename(metaRouter(), 'spec.localRateLimit.conditions', 'condition'),
    lines: [`${MR}spec.localRateLimit.condition: unknown field; did you mean conditions?`],
  },
  {
    name: 'MetaRouter: in the global rate limit',
    object: rename(metaRouter(), 'spec.globalRateLimit.denyOnFail', 'failClosed'),
    lines: [`${MR}spec.globalRateLimit.failClosed: unknown field`],
  },
  {
    name: 'MetaRouter: in a descriptor',
    object: rename(metaRouter(), 'spec.globalRateLimit.descriptors.0.descriptorKey', 'descriptorkey'),
    lines: [
      `${MR}spec.globalRateLimit.descriptors[0].descriptorkey: unknown field; did you mean descriptorKey?`,
      `${MR}spec.globalRateLimit.descriptors[0].descriptorKey: required field is missing`,
    ],
  },
  {
    name: 'MetaRouter: a weight as a string',
    object: set(metaRouter(), 'spec.routes.0.route.0.weight', '100'),
    lines: [`${MR}spec.routes[0].route[0].weight: expected a number, got string "100"`],
  },
  {
    name: 'MetaRouter: mirrorPercentage as a number',
    object: set(metaRouter(), 'spec.routes.0.mirrorPercentage', 1),
    lines: [`${MR}spec.routes[0].mirrorPercentage: expected an object, got number 1`],
  },
  {
    name: 'MetaRouter: attributes as a list',
    object: set(metaRouter(), 'spec.routes.0.match.attributes', [{ method: { exact: 'x' } }]),
    lines: [`${MR}spec.routes[0].match.attributes: expected an object, got a list`],
  },
  {
    name: 'MetaRouter: hosts as a string',
    object: set(metaRouter(), 'spec.hosts', HOST),
    lines: [`${MR}spec.hosts: expected a list, got string "${HOST}"`],
  },
  {
    name: 'MetaRouter: denyOnFail as a string',
    object: set(metaRouter(), 'spec.globalRateLimit.denyOnFail', 'yes'),
    lines: [`${MR}spec.globalRateLimit.denyOnFail: expected a boolean, got string "yes"`],
  },
  {
    name: 'ApplicationProtocol: top of spec (its field then missing)',
    object: rename(applicationProtocol(), 'spec.codec', 'codecs'),
    lines: [
      `${AP}spec.codecs: unknown field; did you mean codec?`,
      `${AP}spec.codec: required field is missing`,
    ],
  },
  {
    name: 'ApplicationProtocol: a field nobody defines',
    object: set(applicationProtocol(), 'spec.version', 'v1'),
    lines: [`${AP}spec.version: unknown field`],
  },
  {
    name: 'ApplicationProtocol: codec as a number',
    object: set(applicationProtocol(), 'spec.codec', 1),
    lines: [`${AP}spec.codec: expected a string, got number 1`],
  },
  {
    name: 'RedisService: top of spec',
    object: rename(redisService(), 'spec.host', 'hosts'),
    lines: [
      `${RS}spec.hosts: unknown field; did you mean host?`,
      `${RS}spec.host: at least one host is required`,
    ],
  },
  {
    name: 'RedisService: nested in settings',
    object: rename(redisService(), 'spec.settings.auth.plain.password', 'passwd'),
    lines: [`${RS}spec.settings.auth.plain.passwd: unknown field; did you mean password?`],
  },
  {
    name: 'RedisService: inside the route list',
    object: rename(redisService(), 'spec.redis.0.route.port', 'prot'),
    lines: [`${RS}spec.redis[0].route.prot: unknown field; did you mean port?`],
  },
  {
    name: 'RedisService: a percentage as a string',
    object: set(redisService(), 'spec.faults.0.percentage.value', '50'),
    lines: [`${RS}spec.faults[0].percentage.value: expected a number, got string "50"`],
  },
  {
    name: 'RedisDestination: top of spec',
    object: set(redisDestination(), 'spec.subsets', []),
    lines: [`${RD}spec.subsets: unknown field`],
  },
  {
    name: 'RedisDestination: nested in the connection pool',
    object: rename(
      redisDestination(),
      'spec.trafficPolicy.connectionPool.tcp.connectTimeout',
      'connectTimout',
    ),
    lines: [
      `${RD}spec.trafficPolicy.connectionPool.tcp.connectTimout: unknown field; did you mean connectTimeout?`,
    ],
  },
  {
    name: 'RedisDestination: a list field in the singular',
    object: rename(
      redisDestination(),
      'spec.trafficPolicy.connectionPool.redis.discoveryEndpoints',
      'discoveryEndpoint',
    ),
    lines: [
      `${RD}spec.trafficPolicy.connectionPool.redis.discoveryEndpoint: unknown field; did you mean discoveryEndpoints?`,
    ],
  },
  {
    name: 'RedisDestination: maxConnections as a string',
    object: set(redisDestination(), 'spec.trafficPolicy.connectionPool.tcp.maxConnections', '10'),
    lines: [`${RD}spec.trafficPolicy.connectionPool.tcp.maxConnections: expected a number, got string "10"`],
  },
  {
    name: 'DubboAuthorizationPolicy: the same reading',
    object: rename(dubboPolicy(), 'spec.rules.0.from.0.source.namespaces', 'namespace'),
    lines: [
      'error: DubboAuthorizationPolicy rpc/p: spec.rules[0].from[0].source.namespace: unknown field; did you mean namespaces?',
    ],
  },
];

const without = (object: Raw, key: string): Raw => {
  const copy = structuredClone(object);
  delete copy[key];
  return copy;
};

/** Near-miss kinds: warnings (exit 0; 1 with validate --strict). */
export const KIND_CASES: readonly NearMissCase[] = [
  {
    name: 'a MetaProtocol version nobody serves',
    object: set(metaRouter(), 'apiVersion', 'metaprotocol.aeraki.io/v1'),
    lines: [
      'warning: MetaRouter rpc/r: apiVersion: metaprotocol.aeraki.io/v1 is not served; did you mean metaprotocol.aeraki.io/v1alpha1?',
    ],
  },
  {
    name: 'an Istio version nobody serves',
    object: {
      apiVersion: 'networking.istio.io/v2',
      kind: 'ServiceEntry',
      metadata: { namespace: 'rpc', name: 'echo' },
      spec: { hosts: [HOST], ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }] },
    },
    lines: [
      'warning: ServiceEntry rpc/echo: apiVersion: networking.istio.io/v2 is not served; did you mean networking.istio.io/v1?',
    ],
  },
  {
    name: 'a cluster-scoped kind in a version nobody serves',
    object: set(applicationProtocol(), 'apiVersion', 'metaprotocol.aeraki.io/v1beta1'),
    lines: [
      'warning: ApplicationProtocol trpc: apiVersion: metaprotocol.aeraki.io/v1beta1 is not served; did you mean metaprotocol.aeraki.io/v1alpha1?',
    ],
  },
  {
    name: 'a Redis version nobody serves',
    object: set(redisService(), 'apiVersion', 'redis.aeraki.io/v1'),
    lines: [
      'warning: RedisService cache/rs: apiVersion: redis.aeraki.io/v1 is not served; did you mean redis.aeraki.io/v1alpha1?',
    ],
  },
  {
    name: 'a kind in another case',
    object: set(metaRouter(), 'kind', 'Metarouter'),
    lines: [
      'warning: Metarouter rpc/r: kind: Metarouter is not served (kinds are case-sensitive); did you mean MetaRouter?',
    ],
  },
  {
    name: 'a kind in lower case, without namespace',
    object: {
      apiVersion: 'networking.istio.io/v1',
      kind: 'serviceentry',
      metadata: { name: 'echo' },
      spec: { hosts: [HOST] },
    },
    lines: [
      'warning: serviceentry default/echo: kind: serviceentry is not served (kinds are case-sensitive); did you mean ServiceEntry?',
    ],
  },
  {
    name: 'a kind one letter short (edit distance)',
    object: set(metaRouter(), 'kind', 'MetaRoute'),
    lines: ['warning: MetaRoute rpc/r: kind: MetaRoute is not served; did you mean MetaRouter?'],
  },
  {
    name: 'a kind in the plural (edit distance)',
    object: set(metaRouter(), 'kind', 'MetaRouters'),
    lines: ['warning: MetaRouters rpc/r: kind: MetaRouters is not served; did you mean MetaRouter?'],
  },
  {
    name: 'a misspelt group of a known kind (edit distance on the group)',
    object: set(metaRouter(), 'apiVersion', 'metaprotocl.aeraki.io/v1alpha1'),
    lines: [
      'warning: MetaRouter rpc/r: apiVersion: metaprotocl.aeraki.io/v1alpha1 is not served; did you mean metaprotocol.aeraki.io/v1alpha1?',
    ],
  },
  {
    name: 'a misspelt kind in a misspelt group',
    object: set(set(metaRouter(), 'kind', 'MetaRoute'), 'apiVersion', 'metaprotocl.aeraki.io/v1alpha1'),
    lines: [
      'warning: MetaRoute rpc/r: kind: MetaRoute is not served; did you mean MetaRouter (apiVersion metaprotocol.aeraki.io/v1alpha1)?',
    ],
  },
  {
    name: 'a swapped pair of letters in an Istio kind',
    object: {
      apiVersion: 'networking.istio.io/v1',
      kind: 'DestinatoinRule',
      metadata: { namespace: 'rpc', name: 'echo' },
      spec: { host: HOST },
    },
    lines: [
      'warning: DestinatoinRule rpc/echo: kind: DestinatoinRule is not served; did you mean DestinationRule?',
    ],
  },
  {
    name: 'a known kind without apiVersion',
    object: without(metaRouter(), 'apiVersion'),
    lines: [
      'warning: MetaRouter rpc/r: apiVersion: required field is missing; did you mean metaprotocol.aeraki.io/v1alpha1?',
    ],
  },
  {
    name: 'a Kubernetes Service without apiVersion',
    object: {
      kind: 'Service',
      metadata: { namespace: 'rpc', name: 'echo' },
      spec: { ports: [{ port: 80 }] },
    },
    lines: ['warning: Service rpc/echo: apiVersion: required field is missing; did you mean v1?'],
  },
];

/** Kinds nobody reads, and known kind names of other groups: silently ignored. */
export const SILENT_CASES: readonly NearMissCase[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: {} },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'rpc', name: 'settings' }, data: { a: 'b' } },
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x.y.io' } },
  { apiVersion: 'networking.istio.io/v1alpha3', kind: 'EnvoyFilter', metadata: { name: 'f' }, spec: {} },
  { apiVersion: 'networking.istio.io/v2', kind: 'Sidecar', metadata: { name: 's' }, spec: {} },
  { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'g' }, spec: {} },
  { apiVersion: 'serving.knative.dev/v1', kind: 'Service', metadata: { name: 'k' }, spec: {} },
  { apiVersion: 'apps/v1', kind: 'service', metadata: { name: 'k' }, spec: {} },
  { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' } },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } },
  { apiVersion: 'networking.istio.io/v1', kind: 'WorkloadEntry', metadata: { name: 'w' }, spec: {} },
  { apiVersion: 'security.istio.io/v1', kind: 'AuthorizationPolicy', metadata: { name: 'a' }, spec: {} },
  { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', metadata: { name: 'r' }, spec: {} },
  { apiVersion: 'serving.knative.dev/v1', kind: 'Services', metadata: { name: 'k' }, spec: {} },
].map((object) => ({ name: `${String(object.apiVersion)} ${object.kind}`, object, lines: [] }));
