// A seeded random sequence of changes to a small mesh, of every kind the generators and the route builder read
// (ServiceEntry, Service, VirtualService, DestinationRule, Gateway, MetaRouter, ApplicationProtocol,
// DubboAuthorizationPolicy, RedisService, RedisDestination, Secret, the mesh config), each created, updated (valid
// or invalid: the store rejects it, keeps its last valid version or holds its hosts) or deleted. Few names and
// hosts, so objects collide on hosts, names and claims.
import type { ConfigStore } from '../../src/controller/store.ts';
import { boundGatewaysOf, boundHostsOf } from '../../src/model/bound-hosts.ts';
import { DEFAULT_MESH_CONFIG } from '../../src/model/mesh.ts';
import { parseConfigObject } from '../../src/model/parse/parse.ts';
import { PARSE_OPTIONS } from './kinds.ts';
import type { GenerateOutput } from '../../src/envoyfilter/generate-all.ts';
import { compareStrings } from '../../src/model/order.ts';
import { stableStringify } from '../../src/util/json.ts';

type Raw = Record<string, unknown>;

export const ROOT = 'istio-system';

/** mulberry32: a small seeded generator of numbers in [0, 1). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMESPACES = ['a', 'b', ROOT];
const NAMES = ['s0', 's1', 's2'];
const HOSTS = ['s0', 's1', 's0.a.svc.cluster.local', 's1.b.svc.cluster.local', 'ext.example.com'];
const TIMES = ['2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', undefined];
const PORTS: Raw[] = [
  { number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' },
  { number: 20881, name: 'tcp-metaprotocol-videopacket', protocol: 'TCP' },
  { number: 20882, name: 'tcp-metaprotocol', protocol: 'TCP' },
  { number: 20883, name: 'tcp-dubbo', protocol: 'TCP' },
  { number: 9090, name: 'tcp-thrift', protocol: 'TCP' },
  { number: 6379, name: 'tcp-redis', protocol: 'TCP' },
  { number: 9092, name: 'tcp-kafka', protocol: 'TCP' },
  { number: 2181, name: 'tcp-zookeeper', protocol: 'TCP' },
  { number: 27017, name: 'tcp-mongo', protocol: 'TCP' },
  { number: 7000, name: 'tcp-foo', protocol: 'TCP' },
  { number: 8080, name: 'http', protocol: 'HTTP' },
];

const KINDS = [
  'ServiceEntry',
  'Service',
  'VirtualService',
  'DestinationRule',
  'Gateway',
  'MetaRouter',
  'ApplicationProtocol',
  'DubboAuthorizationPolicy',
  'RedisService',
  'RedisDestination',
  'Secret',
  'MeshConfig',
] as const;

export type ChangeKind = (typeof KINDS)[number];

/** One change: what it did, for a failure message. */
export interface Change {
  readonly kind: ChangeKind;
  readonly op: 'upsert' | 'reject' | 'delete' | 'mesh';
  readonly namespace: string;
  readonly name: string;
}

class Picker {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  one<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  some<T>(xs: readonly T[], max: number): T[] {
    const n = 1 + this.int(max);
    const out: T[] = [];
    for (let i = 0; i < n; i++) {
      const x = this.one(xs);
      if (!out.includes(x)) out.push(x);
    }
    return out;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

function meta(p: Picker, namespace: string, name: string): Raw {
  const out: Raw = { namespace, name };
  const t = p.one(TIMES);
  if (t !== undefined) out['creationTimestamp'] = t;
  return out;
}

function serviceEntry(p: Picker, m: Raw): Raw {
  if (p.chance(0.3)) m['annotations'] = { interface: `org.example.${p.one(NAMES)}.Api` };
  const spec: Raw = {
    hosts: p.some(HOSTS, 2),
    addresses: p.chance(0.7) ? [`240.240.0.${p.int(3)}`] : [],
    ports: p.some(PORTS, 2),
    resolution: 'STATIC',
  };
  if (p.chance(0.5)) spec['workloadSelector'] = { labels: { app: p.one(NAMES) } };
  return { apiVersion: 'networking.istio.io/v1alpha3', kind: 'ServiceEntry', metadata: m, spec };
}

function kubeService(p: Picker, m: Raw): Raw {
  const ports = p.some(PORTS, 2).map((port) => ({ name: port['name'], port: port['number'] }));
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: m,
    spec: { clusterIP: `10.96.0.${p.int(3) + 1}`, ports },
  };
}

function destination(p: Picker): Raw {
  const d: Raw = { host: p.one(HOSTS) };
  if (p.chance(0.5)) d['subset'] = p.one(['v1', 'v2']);
  if (p.chance(0.4)) d['port'] = { number: p.one([20880, 20881, 20883]) };
  return d;
}

function metaRouter(p: Picker, m: Raw): Raw {
  const spec: Raw = {
    hosts: p.chance(0.9) ? [p.one(HOSTS)] : p.some(HOSTS, 2),
    routes: [
      {
        name: p.one(['r1', 'r2']),
        ...(p.chance(0.5) ? { match: { attributes: { method: { exact: p.one(['get', 'put']) } } } } : {}),
        route: p.chance(0.5)
          ? [{ destination: destination(p) }]
          : [
              { destination: destination(p), weight: 70 },
              { destination: destination(p), weight: 30 },
            ],
      },
    ],
  };
  if (p.chance(0.4)) spec['gateways'] = [p.one(['s0', 'a/s1', 'b/s0'])];
  if (p.chance(0.3)) spec['exportTo'] = p.some(['.', '*', 'b'], 2);
  if (p.chance(0.3)) {
    spec['localRateLimit'] = { tokenBucket: { maxTokens: 10, tokensPerFill: 10, fillInterval: '60s' } };
  }
  return { apiVersion: 'metaprotocol.aeraki.io/v1alpha1', kind: 'MetaRouter', metadata: m, spec };
}

function virtualService(p: Picker, m: Raw): Raw {
  const spec: Raw = { hosts: p.some(HOSTS, 2) };
  if (p.chance(0.5)) spec['http'] = [{ route: [{ destination: destination(p) }] }];
  else spec['tcp'] = [{ route: [{ destination: destination(p) }] }];
  return { apiVersion: 'networking.istio.io/v1alpha3', kind: 'VirtualService', metadata: m, spec };
}

function destinationRule(p: Picker, m: Raw): Raw {
  const hash = { loadBalancer: { consistentHash: { httpHeaderName: p.one(['x-user', 'x-id']) } } };
  const subsets = p.some(['v1', 'v2'], 2).map((name) => ({
    name,
    labels: { version: name },
    ...(p.chance(0.5) ? { trafficPolicy: hash } : {}),
  }));
  const spec: Raw = { host: p.one(HOSTS), subsets };
  if (p.chance(0.4)) spec['trafficPolicy'] = hash;
  return { apiVersion: 'networking.istio.io/v1alpha3', kind: 'DestinationRule', metadata: m, spec };
}

function gateway(p: Picker, m: Raw): Raw {
  const servers = p.some([20880, 20881], 2).map((number) => ({
    port: {
      number,
      name: number === 20880 ? 'tcp-metaprotocol-dubbo' : 'tcp-metaprotocol-videopacket',
      protocol: 'TCP',
    },
    hosts: ['*'],
  }));
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'Gateway',
    metadata: m,
    spec: { selector: { istio: 'ingressgateway' }, servers },
  };
}

function applicationProtocol(p: Picker, m: Raw): Raw {
  const protocol = p.one(['videopacket', 'dubbo', 'other']);
  const codec = p.one(['aeraki.meta_protocol.codec.videopacket', 'aeraki.meta_protocol.codec.dubbo']);
  return {
    apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
    kind: 'ApplicationProtocol',
    metadata: {
      name: m['name'],
      ...(m['creationTimestamp'] ? { creationTimestamp: m['creationTimestamp'] } : {}),
    },
    spec: { protocol, codec },
  };
}

function dubboPolicy(p: Picker, m: Raw): Raw {
  const spec = {
    action: p.one(['ALLOW', 'DENY']),
    rules: [
      {
        from: [{ source: { namespaces: [p.one(NAMESPACES)] } }],
        to: [{ operation: { methods: [p.one(['get*', 'put'])] } }],
      },
    ],
  };
  return { apiVersion: 'dubbo.aeraki.io/v1alpha1', kind: 'DubboAuthorizationPolicy', metadata: m, spec };
}

function redisService(p: Picker, m: Raw): Raw {
  const spec: Raw = {
    host: p.some(HOSTS, 2),
    redis: [
      { match: { key: { prefix: 'user:' } }, route: { host: p.one(HOSTS) } },
      { route: { host: p.one(HOSTS) } },
    ],
  };
  if (p.chance(0.3)) spec['settings'] = { opTimeout: '250ms' };
  return { apiVersion: 'redis.aeraki.io/v1alpha1', kind: 'RedisService', metadata: m, spec };
}

function redisDestination(p: Picker, m: Raw): Raw {
  const auth = p.chance(0.5) ? { secret: { name: p.one(NAMES) } } : { plain: { password: 'pw' } };
  return {
    apiVersion: 'redis.aeraki.io/v1alpha1',
    kind: 'RedisDestination',
    metadata: m,
    spec: {
      host: p.one(HOSTS),
      trafficPolicy: { connectionPool: { redis: { mode: 'PROXY', auth } } },
    },
  };
}

function secret(p: Picker, m: Raw): Raw {
  const password = Buffer.from(`pw-${p.int(3)}`).toString('base64');
  return { apiVersion: 'v1', kind: 'Secret', metadata: m, data: { password } };
}

const BUILD: Record<Exclude<ChangeKind, 'MeshConfig'>, (p: Picker, m: Raw) => Raw> = {
  ServiceEntry: serviceEntry,
  Service: kubeService,
  VirtualService: virtualService,
  DestinationRule: destinationRule,
  Gateway: gateway,
  MetaRouter: metaRouter,
  ApplicationProtocol: applicationProtocol,
  DubboAuthorizationPolicy: dubboPolicy,
  RedisService: redisService,
  RedisDestination: redisDestination,
  Secret: secret,
};

/** An invalid version of `raw`: a field of the wrong type where the kind reads it. */
function broken(p: Picker, raw: Raw): Raw {
  const spec = raw['spec'] as Raw | undefined;
  if (raw['kind'] === 'Secret') return { ...raw, data: 'oops' };
  if (spec === undefined) return raw;
  const field = p.one(Object.keys(spec));
  return { ...raw, spec: { ...spec, [field]: p.chance(0.5) ? 'oops' : 42 } };
}

function meshVariant(p: Picker) {
  return {
    ...DEFAULT_MESH_CONFIG,
    rootNamespace: ROOT,
    accessLogFile: p.one(['', '/dev/stdout']),
    enableTracing: p.chance(0.5),
  };
}

/**
 * Applies one random change to `store`, as the Kubernetes sources do (invalid objects rejected with the hosts and
 * Gateways they bind).
 */
export function randomChange(p: Picker, store: ConfigStore): Change {
  const kind = p.one(KINDS);
  if (kind === 'MeshConfig') {
    store.setMesh(meshVariant(p));
    return { kind, op: 'mesh', namespace: ROOT, name: 'istio' };
  }
  const namespace = kind === 'ApplicationProtocol' ? '' : p.one(NAMESPACES);
  const name = p.one(NAMES);
  if (p.chance(0.2)) {
    store.delete(kind, namespace, name);
    return { kind, op: 'delete', namespace, name };
  }
  let raw = BUILD[kind](p, meta(p, namespace, name));
  if (p.chance(0.15)) raw = broken(p, raw);
  const parsed = parseConfigObject(raw, PARSE_OPTIONS);
  if (parsed === undefined) throw new Error(`not a kind the controller reads: ${JSON.stringify(raw)}`);
  if (parsed.ok) {
    store.upsert(parsed.value);
    return { kind, op: 'upsert', namespace, name };
  }
  const ref = parsed.issues[0]?.ref ?? { kind, namespace, name };
  store.reject(ref, parsed.issues, boundHostsOf(raw), boundGatewaysOf(raw, namespace));
  return { kind, op: 'reject', namespace, name };
}

export function picker(seed: number): Picker {
  return new Picker(random(seed));
}

export type { Picker };

/** A generation's output as text: every field, the failed sources sorted (a set has no order). */
export function outputText(out: GenerateOutput): string {
  return stableStringify({
    objects: out.objects,
    issues: out.issues,
    failedSources: [...out.failedSources].sort(compareStrings),
    unhandledPorts: out.unhandledPorts,
    conflicts: out.conflicts,
  });
}
