// Synthetic mesh configs for benchmarks, service by service, in 50 namespaces (service i in `ns-<i % 50>`).
//
// - MetaProtocol-only: N MetaProtocol ServiceEntries with two addresses each; every other one has a MetaRouter
//   (traffic split + attribute match, the method matched by a regex on one MetaRouter in five) and a
//   DestinationRule (two subsets, consistent hash).
// - Mixed: the same sizes, three fifths MetaProtocol services as above, one fifth Redis services (RedisService
//   with prefix routes; settings and a mirror for half of them, a RedisDestination for the other half), one fifth
//   native Dubbo services, whose namespaces hold three DubboAuthorizationPolicies (one DENY, two ALLOW). Every
//   namespace holds every kind: the kind goes by the block of 50 services (`floor(i / 50) % 5`).
import { compareStrings } from '../src/model/order.ts';
import { DEFAULT_PARSE_OPTIONS, type ParseOptions } from '../src/model/parse/parse.ts';
import { createPluginKinds } from '../src/plugins/registry.ts';

/** How the benchmarks parse the synthetic objects: as the app does, with the plugins' kinds (Redis, Dubbo policy). */
export const SYNTHETIC_PARSE_OPTIONS: ParseOptions = { ...DEFAULT_PARSE_OPTIONS, kinds: createPluginKinds() };

type Raw = Record<string, unknown>;

/** Which synthetic mesh: MetaProtocol services only, or the mix of MetaProtocol, Redis and native Dubbo. */
export type SyntheticMix = 'metaprotocol' | 'mixed';

const NAMESPACES = 50;

function namespaceOf(i: number): string {
  return `ns-${i % NAMESPACES}`;
}

function hostOf(i: number): string {
  return `svc-${i}.${namespaceOf(i)}.svc.cluster.local`;
}

function meta(name: string, namespace: string): Raw {
  return { name, namespace, creationTimestamp: '2026-01-01T00:00:00Z' };
}

/** Service i's ServiceEntry: two addresses, one port, a workload selector. */
function serviceEntry(i: number, port: Raw, annotations?: Record<string, string>): Raw {
  const metadata = meta(`svc-${i}`, namespaceOf(i));
  if (annotations !== undefined) metadata['annotations'] = annotations;
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'ServiceEntry',
    metadata,
    spec: {
      hosts: [hostOf(i)],
      addresses: [`240.240.${(i >> 8) & 255}.${i & 255}`, `240.241.${(i >> 8) & 255}.${i & 255}`],
      ports: [port],
      workloadSelector: { labels: { app: `svc-${i}` } },
      resolution: 'STATIC',
    },
  };
}

/**
 * A MetaProtocol Dubbo service; every other one (even i) with a DestinationRule and a MetaRouter, whose method match
 * is a regex on every tenth service (an RE2 check in validation, `safeRegexMatch` in the route).
 */
function metaProtocolService(i: number): Raw[] {
  const ns = namespaceOf(i);
  const host = hostOf(i);
  const out = [serviceEntry(i, { number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' })];
  if (i % 2 === 0) {
    out.push({
      apiVersion: 'networking.istio.io/v1alpha3',
      kind: 'DestinationRule',
      metadata: meta(`svc-${i}`, ns),
      spec: {
        host,
        subsets: [
          { name: 'v1', labels: { version: 'v1' } },
          {
            name: 'v2',
            labels: { version: 'v2' },
            trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: 'userid' } } },
          },
        ],
      },
    });
    out.push({
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'MetaRouter',
      metadata: meta(`svc-${i}`, ns),
      spec: {
        hosts: [host],
        routes: [
          {
            name: 'by-method',
            match: {
              attributes: {
                method: i % 10 === 0 ? { regex: '^say(Hello|Hi)(V[0-9]+)?$' } : { exact: 'sayHello' },
                interface: { prefix: 'org.apache' },
              },
            },
            route: [{ destination: { host, subset: 'v2' } }],
          },
          {
            name: 'split',
            route: [
              { destination: { host, subset: 'v1' }, weight: 80 },
              { destination: { host, subset: 'v2' }, weight: 20 },
            ],
          },
        ],
        localRateLimit: { tokenBucket: { maxTokens: 100, tokensPerFill: 10, fillInterval: '1s' } },
      },
    });
  }
  return out;
}

/**
 * A Redis service with a RedisService: two prefix routes to `peer` (another Redis service of the namespace) and a
 * catch-all to itself. With `extras` (half of them), settings and a mirror of the writes to the peer; otherwise a
 * RedisDestination (connection pool, auto auth).
 */
function redisService(i: number, peer: number, extras: boolean): Raw[] {
  const ns = namespaceOf(i);
  const host = hostOf(i);
  const peerHost = hostOf(peer);
  const catchAll: Raw = { route: { host } };
  if (extras) {
    catchAll['mirror'] = [
      { route: { host: peerHost }, percentage: { value: 10 }, excludeReadCommands: true },
    ];
  }
  const spec: Raw = {
    host: [host],
    redis: [
      { match: { key: { prefix: 'user:' } }, route: { host: peerHost } },
      { match: { key: { prefix: 'session:', removePrefix: true } }, route: { host: peerHost } },
      catchAll,
    ],
  };
  if (extras) spec['settings'] = { opTimeout: '250ms', readPolicy: 'PREFER_REPLICA', caseInsensitive: true };
  const out = [
    serviceEntry(i, { number: 6379, name: 'tcp-redis', protocol: 'TCP' }),
    { apiVersion: 'redis.aeraki.io/v1alpha1', kind: 'RedisService', metadata: meta(`svc-${i}`, ns), spec },
  ];
  if (!extras) {
    out.push({
      apiVersion: 'redis.aeraki.io/v1alpha1',
      kind: 'RedisDestination',
      metadata: meta(`svc-${i}`, ns),
      spec: {
        host,
        trafficPolicy: {
          connectionPool: {
            tcp: { maxConnections: 64, connectTimeout: '2s' },
            redis: { mode: 'PROXY', auth: { plain: { password: 'bench-secret' } } },
          },
        },
      },
    });
  }
  return out;
}

/** A native Dubbo service (`tcp-dubbo`, the `interface` annotation naming its Dubbo interface). */
function dubboService(i: number): Raw[] {
  const port = { number: 20880, name: 'tcp-dubbo', protocol: 'TCP' };
  return [serviceEntry(i, port, { interface: `org.example.svc${i}.Api` })];
}

/** The DubboAuthorizationPolicies of a namespace with native Dubbo services: one DENY, two ALLOW. */
function dubboPolicies(ns: string): Raw[] {
  const policy = (name: string, spec: Raw): Raw => ({
    apiVersion: 'dubbo.aeraki.io/v1alpha1',
    kind: 'DubboAuthorizationPolicy',
    metadata: meta(name, ns),
    spec,
  });
  return [
    policy('deny-untrusted', {
      action: 'DENY',
      rules: [
        {
          from: [{ source: { namespaces: ['dev', 'test-*'] } }],
          to: [{ operation: { notMethods: ['ping'], notInterfaces: ['*.Health'] } }],
        },
      ],
    }),
    policy('allow-readers', {
      action: 'ALLOW',
      rules: [
        { from: [{ source: { namespaces: [ns] } }], to: [{ operation: { methods: ['get*', 'query*'] } }] },
      ],
    }),
    policy('allow-admin', {
      action: 'ALLOW',
      rules: [
        {
          from: [{ source: { principals: [`cluster.local/ns/${ns}/sa/admin`] } }],
          to: [{ operation: { interfaces: ['*'] } }],
        },
      ],
    }),
  ];
}

/** The kind of service i in the mixed mesh: blocks of 50 (one service per namespace), three MetaProtocol, ... */
function mixedKindOf(i: number): 'metaprotocol' | 'redis' | 'dubbo' {
  const block = Math.floor(i / NAMESPACES) % 5;
  return block < 3 ? 'metaprotocol' : block === 3 ? 'redis' : 'dubbo';
}

/** The objects service by service (ServiceEntry, then the objects that configure it), services numbered 0..n-1. */
export function syntheticObjects(services: number, mix: SyntheticMix = 'metaprotocol'): Raw[] {
  const out: Raw[] = [];
  for (let i = 0; i < services; i++) {
    const kind = mix === 'metaprotocol' ? 'metaprotocol' : mixedKindOf(i);
    if (kind === 'metaprotocol') {
      out.push(...metaProtocolService(i));
    } else if (kind === 'redis') {
      // The next Redis service of the namespace is 5 blocks on; the last one's peer is the one before.
      const step = 5 * NAMESPACES;
      const peer = i + step < services ? i + step : i - step >= 0 ? i - step : i;
      out.push(...redisService(i, peer, Math.floor(i / step) % 2 === 0));
    } else {
      out.push(...dubboService(i));
      if (i < 5 * NAMESPACES) out.push(...dubboPolicies(namespaceOf(i))); // the namespace's first Dubbo service
    }
  }
  return out;
}

/**
 * The same objects in the order a Kubernetes LIST returns them, kind by kind, then namespace and name: the order
 * informers deliver at start-up, so a store filled from it holds its objects as the controller's store does.
 */
export function syntheticObjectsInListOrder(services: number, mix: SyntheticMix = 'metaprotocol'): Raw[] {
  const listKey = (o: Raw) => {
    const md = o['metadata'] as { namespace: string; name: string };
    return `${String(o['kind'])}\u0000${md.namespace}\u0000${md.name}`;
  };
  const keyed = syntheticObjects(services, mix).map((raw) => ({ raw, key: listKey(raw) }));
  keyed.sort((a, b) => compareStrings(a.key, b.key));
  return keyed.map((k) => k.raw);
}
