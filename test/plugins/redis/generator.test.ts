// The Redis generator through the store and generateAll: what the fixture cases do not pin down (D4 with two redis
// ports, exact host matching, precedence, missing Secrets, Secret redaction in /debug/config).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { configDocument } from '../../../src/app/debug.ts';
import { fillStore, parseRawObjects } from '../../../src/controller/file-source.ts';
import { ConfigStore } from '../../../src/controller/store.ts';
import { generateAll, type GenerateOutput } from '../../../src/envoyfilter/generate-all.ts';
import type { EnvoyFilterObject } from '../../../src/model/objects.ts';
import { formatIssue } from '../../../src/model/result.ts';
import { createRedisGenerator } from '../../../src/plugins/redis/index.ts';
import { PARSE_OPTIONS, PLUGIN_KINDS } from '../../support/kinds.ts';

function storeOf(yaml: string): ConfigStore {
  const raws = parseAllDocuments(yaml).map((d) => d.toJS() as unknown);
  const parsed = parseRawObjects(raws, 'istio-system', [], PARSE_OPTIONS);
  assert.deepEqual(parsed.issues.map(formatIssue), [], 'valid input');
  const store = new ConfigStore({ rootNamespace: 'istio-system', kinds: PLUGIN_KINDS });
  fillStore(store, parsed);
  return store;
}

function generate(yaml: string): GenerateOutput {
  return generateAll(storeOf(yaml), [createRedisGenerator()], { namespaceScope: false });
}

function filter(out: GenerateOutput, name: string): EnvoyFilterObject {
  const f = out.objects.find((o) => o.metadata.name === name);
  assert.ok(
    f && f.kind === 'EnvoyFilter',
    `${name} in ${out.objects.map((o) => o.metadata.name).join(', ')}`,
  );
  return f;
}

/** The redis_proxy config of a filter's first patch. */
function proxy(f: EnvoyFilterObject): Record<string, any> {
  return (f.spec.configPatches[0]?.patch.value as any).typed_config.value;
}

function cluster(f: EnvoyFilterObject): Record<string, any> {
  return f.spec.configPatches[2]?.patch.value as Record<string, any>;
}

const SE = (name: string, hosts: string[], ports: string) => `
apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata: {name: ${name}, namespace: cache}
spec:
  hosts: ${JSON.stringify(hosts)}
  addresses: [10.0.0.1]
  ports: ${ports}
---`;
const RS = (name: string, hosts: string[], extra = '') => `
apiVersion: redis.aeraki.io/v1alpha1
kind: RedisService
metadata: {name: ${name}, namespace: cache}
spec:
  host: ${JSON.stringify(hosts)}
${extra}
---`;

describe('redis generator', () => {
  it('D4: each redis port gets its own filters, clusters and stat prefixes, by its own number', () => {
    const out = generate(
      SE(
        'r',
        ['r.cache.svc.cluster.local'],
        '[{number: 6379, name: tcp-redis}, {number: 6380, name: tcp-Redis-replica}]',
      ),
    );
    assert.deepEqual(out.issues, []);
    for (const port of [6379, 6380]) {
      const f = filter(out, `aeraki-outbound-r.cache.svc.cluster.local-10.0.0.1-${port}`);
      assert.equal(proxy(f)['statPrefix'], `outbound|${port}||r.cache.svc.cluster.local`);
      assert.deepEqual(f.spec.configPatches[1]?.match, {
        cluster: { name: `outbound|${port}||r.cache.svc.cluster.local` },
      });
      assert.equal(cluster(f)['name'], `outbound|${port}||r.cache.svc.cluster.local`);
    }
  });

  it('binds by the first ServiceEntry host any RedisService names, exactly (no FQDN normalisation); last by name wins', () => {
    const out = generate(
      SE(
        'r',
        ['a.cache.svc.cluster.local', 'b.cache.svc.cluster.local'],
        '[{number: 6379, name: tcp-redis}]',
      ) +
        RS('short', ['a'], '  settings: {opTimeout: 1s}') +
        RS('x-first', ['b.cache.svc.cluster.local'], '  settings: {opTimeout: 2s}') +
        RS('z-last', ['b.cache.svc.cluster.local'], '  settings: {opTimeout: 3s}'),
    );
    const p = proxy(filter(out, 'aeraki-outbound-a.cache.svc.cluster.local-10.0.0.1-6379'));
    assert.equal(p['statPrefix'], 'outbound|6379||b.cache.svc.cluster.local');
    assert.deepEqual(p['settings'], { opTimeout: '3s' });
  });

  // Aeraki's fallback (shared render case 50): only where the input lacks the Secret; the Kubernetes source rejects
  // the object instead (test/security/redis-auth.test.ts).
  it('a missing Secret is an error of its object, which is then treated as absent', () => {
    const out = generate(
      SE('r', ['r.cache.svc.cluster.local'], '[{number: 6379, name: tcp-redis}]') +
        RS('rs', ['r.cache.svc.cluster.local'], '  settings: {opTimeout: 1s, auth: {secret: {name: gone}}}') +
        `
apiVersion: redis.aeraki.io/v1alpha1
kind: RedisDestination
metadata: {name: rd, namespace: cache}
spec:
  host: r.cache.svc.cluster.local
  trafficPolicy: {connectionPool: {tcp: {maxConnections: 3}, redis: {auth: {secret: {name: gone}}}}}
`,
    );
    assert.deepEqual(out.issues.map(formatIssue), [
      'RedisDestination cache/rd: spec.trafficPolicy.connectionPool.redis.auth.secret.name: Secret cache/gone not found',
      'RedisService cache/rs: spec.settings.auth.secret.name: Secret cache/gone not found',
    ]);
    const f = filter(out, 'aeraki-outbound-r.cache.svc.cluster.local-10.0.0.1-6379');
    assert.deepEqual(proxy(f)['settings'], { opTimeout: '60s' });
    assert.equal(cluster(f)['type'], 'EDS');
    assert.equal(cluster(f)['circuitBreakers'].thresholds[0].maxConnections, 4294967295);
  });

  it('a Secret without the key, with it empty, or without a usernameField it names: an error, no filter', () => {
    const secret = (data: string) => `
apiVersion: v1
kind: Secret
metadata: {name: auth, namespace: cache}
stringData: ${data}
---`;
    const withAuth = (auth: string) =>
      SE('r', ['r.cache.svc.cluster.local'], '[{number: 6379, name: tcp-redis}]') +
      RS('rs', ['r.cache.svc.cluster.local'], `  settings: {auth: {secret: ${auth}}}`);
    const cases: [string, string, string][] = [
      [
        '{name: auth}',
        '{username: u, other: x}',
        'spec.settings.auth.secret: Secret cache/auth has no key "password" (nor "token")',
      ],
      [
        '{name: auth, passwordField: pw}',
        '{password: p}',
        'spec.settings.auth.secret.passwordField: Secret cache/auth has no key "pw"',
      ],
      [
        '{name: auth}',
        '{password: "  "}',
        'spec.settings.auth.secret: Secret cache/auth key "password" is empty',
      ],
      [
        '{name: auth, usernameField: user}',
        '{password: p}',
        'spec.settings.auth.secret.usernameField: Secret cache/auth has no key "user"',
      ],
    ];
    for (const [auth, data, message] of cases) {
      const out = generate(withAuth(auth) + secret(data));
      assert.deepEqual(out.issues.map(formatIssue), [`RedisService cache/rs: ${message}`], auth + data);
      assert.deepEqual(out.objects, [], `${auth} ${data}: no filter without auth`);
      assert.equal(out.failedSources.size, 1, 'the output written before stays');
    }
    const token = generate(withAuth('{name: auth}') + secret('{token: t}'));
    assert.deepEqual(token.issues, [], 'the token key serves when there is no password key');
  });

  it('a Secret of another namespace does not count; one of the same namespace does', () => {
    const secret = (ns: string) => `
apiVersion: v1
kind: Secret
metadata: {name: auth, namespace: ${ns}}
stringData: {password: " pw ", username: user}
---`;
    const base =
      SE('r', ['r.cache.svc.cluster.local'], '[{number: 6379, name: tcp-redis}]') +
      RS('rs', ['r.cache.svc.cluster.local'], '  settings: {auth: {secret: {name: auth}}}');
    assert.equal(generate(base + secret('other')).issues.length, 1);
    const out = generate(base + secret('cache'));
    const p = proxy(filter(out, 'aeraki-outbound-r.cache.svc.cluster.local-10.0.0.1-6379'));
    assert.deepEqual(p['downstreamAuthPassword'], { inlineString: 'pw' });
    assert.deepEqual(p['downstreamAuthUsername'], { inlineString: 'user' });
  });

  it('CLUSTER mode: IPv6 seeds, the endpoint port or the listener port; the RedisDestination host on the listener port', () => {
    const out = generate(
      SE('synthetic-r', ['r.cache.svc.cluster.local'], '[{number: 6379, name: tcp-redis}]') +
        `
apiVersion: redis.aeraki.io/v1alpha1
kind: RedisDestination
metadata: {name: rd, namespace: cache}
spec:
  host: r.cache.svc.cluster.local
  trafficPolicy: {connectionPool: {redis: {mode: CLUSTER, discoveryEndpoints: ["[fd00::1]:7000", seed]}}}
`,
    );
    const c = cluster(filter(out, 'aeraki-outbound-r.cache.svc.cluster.local-10.0.0.1-6379'));
    assert.equal(c['type'], undefined);
    assert.deepEqual(
      c['loadAssignment'].endpoints[0].lbEndpoints.map((e: any) => e.endpoint.address.socketAddress),
      [
        { address: 'fd00::1', portValue: 7000 },
        { address: 'seed', portValue: 6379 },
      ],
    );
    assert.equal(c['metadata'].filterMetadata.istio.services[0].name, 'r', 'synthetic- prefix dropped');
  });

  it('/debug/config shows Secret keys, never values', () => {
    const store = storeOf(`
apiVersion: v1
kind: Secret
metadata: {name: auth, namespace: cache}
stringData: {password: hunter2}
`);
    const doc = JSON.stringify(configDocument(store, true));
    assert.ok(!doc.includes('hunter2'), doc);
    assert.ok(doc.includes('"password":"<redacted>"'), doc);
  });
});
