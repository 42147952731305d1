// gateSecretRefs: the Secrets objects name, over one complete read of the input (the directory source), with the
// issues the Kubernetes source gives; the last valid version keeps the Secret it was read with.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gateSecretRefs } from '../../src/controller/secret-gate.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { fillStore } from '../../src/controller/file-source.ts';
import { secretRefReader } from '../../src/model/kinds.ts';
import { parseRawObjects, type ParsedObjects } from '../../src/model/parse/objects.ts';
import { formatIssue } from '../../src/model/result.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';

const ROOT = 'istio-system';
const KINDS = createPluginKinds();
const REFS = secretRefReader(KINDS);

function service(name: string, passwordField?: string): unknown {
  return {
    apiVersion: 'redis.aeraki.io/v1alpha1',
    kind: 'RedisService',
    metadata: { namespace: 'cache', name },
    spec: {
      host: [`${name}.cache.svc.cluster.local`],
      settings: { auth: { secret: { name: 'shared', ...(passwordField ? { passwordField } : {}) } } },
    },
  };
}

function secret(data: Record<string, string>): unknown {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'cache', name: 'shared' }, data };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

function parse(raws: unknown[]): ParsedObjects {
  return parseRawObjects(raws, ROOT, [], { clusterDomain: 'cluster.local', kinds: KINDS });
}

/** Gates `raws` against `store` and fills it, as the directory source does; returns the gated read. */
function load(store: ConfigStore, raws: unknown[]): ParsedObjects {
  const gated = gateSecretRefs(parse(raws), REFS, (k, ns, n) => store.get(k as 'Secret', ns, n));
  fillStore(store, gated);
  return gated;
}

const rejectedLines = (p: ParsedObjects) => p.rejected.flatMap((r) => r.issues.map(formatIssue));

describe('gateSecretRefs', () => {
  it('a Secret not in the input rejects the object, with the hosts it configures', () => {
    const store = new ConfigStore({ rootNamespace: ROOT, kinds: KINDS });
    const out = load(store, [service('a')]);
    assert.deepEqual(rejectedLines(out), [
      'RedisService cache/a: spec.settings.auth.secret.name: Secret cache/shared not found',
    ]);
    assert.deepEqual(out.rejected[0]?.hosts, ['a.cache.svc.cluster.local']);
    assert.equal(store.get('RedisService', 'cache', 'a'), undefined);
    assert.deepEqual(
      store.heldHosts().map((h) => h.host),
      ['a.cache.svc.cluster.local'],
    );
  });

  it('a Secret whose value is not base64 (rejected by the parser) rejects the object, naming the key', () => {
    const store = new ConfigStore({ rootNamespace: ROOT, kinds: KINDS });
    const out = load(store, [service('a'), secret({ password: 'not base64!' })]);
    assert.deepEqual(
      rejectedLines(out).filter((l) => l.startsWith('RedisService')),
      [
        'RedisService cache/a: spec.settings.auth.secret.name: Secret cache/shared cannot be used: data.password: not valid base64',
      ],
    );
  });

  it('the key removed: the object keeps its last valid version and the Secret it was read with', () => {
    const store = new ConfigStore({ rootNamespace: ROOT, kinds: KINDS });
    load(store, [service('a'), secret({ password: b64('one') })]);
    assert.ok(store.get('RedisService', 'cache', 'a'));
    const out = load(store, [service('a'), secret({ other: b64('x') })]);
    assert.deepEqual(rejectedLines(out), [
      'RedisService cache/a: spec.settings.auth.secret: Secret cache/shared has no key "password" (nor "token")',
    ]);
    assert.ok(store.get('RedisService', 'cache', 'a'), 'the last valid version stays');
    assert.deepEqual(store.get('Secret', 'cache', 'shared')?.spec.data, { password: 'one' });
    load(store, [service('a')]);
    assert.deepEqual(store.get('Secret', 'cache', 'shared')?.spec.data, { password: 'one' }, 'file removed');
    assert.deepEqual(store.heldHosts(), [], 'nothing held: a valid version is in effect');
  });

  it('a Secret shared with an accepted object is the input’s: only the object it cannot serve is rejected', () => {
    const store = new ConfigStore({ rootNamespace: ROOT, kinds: KINDS });
    load(store, [service('a', 'pa'), service('b', 'pb'), secret({ pa: b64('1'), pb: b64('2') })]);
    const out = load(store, [service('a', 'pa'), service('b', 'pb'), secret({ pb: b64('3') })]);
    assert.deepEqual(rejectedLines(out), [
      'RedisService cache/a: spec.settings.auth.secret.passwordField: Secret cache/shared has no key "pa"',
    ]);
    assert.equal(store.get('Secret', 'cache', 'shared')?.spec.data['pb'], '3');
  });
});
