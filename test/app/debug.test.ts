// /debug/config: every kind of the store, DubboAuthorizationPolicies included, and the rejected objects; no
// credential a plugin declares in any /debug/* document.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configDocument, withoutSecrets } from '../../src/app/debug.ts';
import { parseRawObjects, fillStore } from '../../src/controller/file-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { secretPolicy } from '../../src/model/secret-fields.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { PARSE_OPTIONS, PLUGIN_KINDS } from '../support/kinds.ts';

describe('/debug/config', () => {
  it('lists DubboAuthorizationPolicies and the rejected ones with their field', () => {
    const policy = (name: string, spec: unknown) => ({
      apiVersion: 'dubbo.aeraki.io/v1alpha1',
      kind: 'DubboAuthorizationPolicy',
      metadata: { name, namespace: 'rpc' },
      spec,
    });
    const store = new ConfigStore({ rootNamespace: 'istio-system', kinds: PLUGIN_KINDS });
    fillStore(
      store,
      parseRawObjects(
        [policy('ok', { action: 'DENY' }), policy('bad', { action: 'AUDIT' })],
        'istio-system',
        [],
        PARSE_OPTIONS,
      ),
    );
    const doc = configDocument(store, true) as {
      objects: Record<string, { metadata: { name: string }; spec: unknown }[]>;
      rejected: { issues: string[] }[];
    };
    assert.deepEqual(
      doc.objects['DubboAuthorizationPolicy']?.map((p) => [p.metadata.name, p.spec]),
      [['ok', { action: 'DENY', rules: [] }]],
    );
    assert.deepEqual(
      doc.rejected.flatMap((r) => r.issues),
      ['DubboAuthorizationPolicy rpc/bad: spec.action: must be ALLOW or DENY, got string "AUDIT"'],
    );
  });
});

// Every credential field a plugin declares (KindSpec.secretFields in its objects, Generator.secretKeys in its output)
// is `<redacted>` in every /debug/* document, and the text of an issue at such a field too.
describe("/debug/* redaction by the plugins' declarations", () => {
  const generators = createGenerators();
  const policy = secretPolicy(PLUGIN_KINDS, generators);
  let n = 0;
  const value = () => `S3cret-value-${++n}`;

  /** `o` with `path` set to a fresh value (`*` as key `k`), and the value. */
  function setPath(o: Record<string, any>, path: string): string {
    const segs = path.split('.').map((s) => (s === '*' ? 'k' : s));
    let at = o;
    for (const s of segs.slice(0, -1)) at = at[s] ??= {};
    const v = value();
    at[segs[segs.length - 1]!] = v;
    return v;
  }

  it('redacts every declared field of every plugin kind, and every declared output key', async () => {
    const declared = PLUGIN_KINDS.filter((k) => (k.secretFields ?? []).length > 0).map((k) => k.kind);
    assert.deepEqual(declared, ['RedisService', 'RedisDestination']);
    const values: string[] = [];
    const objects = PLUGIN_KINDS.map((k) => {
      const o: Record<string, any> = {
        apiVersion: 'x/v1',
        kind: k.kind,
        metadata: { name: 'a', namespace: 'b' },
      };
      for (const p of k.secretFields ?? []) values.push(setPath(o, p));
      return o;
    });
    const keys = generators.flatMap((g) => g.secretKeys ?? []);
    assert.ok(keys.includes('downstreamAuthPassword') && keys.includes('authPassword'), keys.join());
    const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const output = keys.map((k) => {
      const [camel, under] = [value(), value()];
      values.push(camel, under);
      return {
        spec: {
          configPatches: [
            { patch: { value: { typed_config: { value: { [k]: camel, [snake(k)]: under } } } } },
          ],
        },
      };
    });
    const docs = withoutSecrets(
      { config: () => ({ objects }), envoyfilters: () => Promise.resolve({ desired: output }) },
      policy,
    );
    const bodies = [JSON.stringify(docs.config()), JSON.stringify(await docs.envoyfilters())];
    for (const v of values) for (const b of bodies) assert.ok(!b.includes(v), `${v} shown`);
    assert.ok(bodies[0]!.includes('"password":"<redacted>"'), bodies[0]);
  });

  it('/debug/config: plain Redis credentials and issues quoting them are redacted; the Secret names stay', () => {
    const store = new ConfigStore({ rootNamespace: 'istio-system', kinds: PLUGIN_KINDS });
    const redis = (kind: string, name: string, spec: unknown) => ({
      apiVersion: 'redis.aeraki.io/v1alpha1',
      kind,
      metadata: { name, namespace: 'cache' },
      spec,
    });
    fillStore(
      store,
      parseRawObjects(
        [
          redis('RedisService', 'ok', {
            host: ['r'],
            settings: { auth: { plain: { password: 'pw-1', username: 'user-1' } } },
          }),
          redis('RedisService', 'bad', { host: ['r'], settings: { auth: { plain: { password: 918273 } } } }),
          redis('RedisService', 'worse', { host: ['r'], settings: { auth: { plain: 'pw-plain-3' } } }),
          redis('RedisDestination', 'd', {
            host: 'r',
            trafficPolicy: {
              connectionPool: { redis: { auth: { plain: { password: 'pw-2', username: 'user-2' } } } },
            },
          }),
          redis('RedisDestination', 's', {
            host: 's',
            trafficPolicy: { connectionPool: { redis: { auth: { secret: { name: 'auth-secret' } } } } },
          }),
        ],
        'istio-system',
        [],
        PARSE_OPTIONS,
      ),
    );
    const doc = JSON.stringify(configDocument(store, true));
    for (const v of ['pw-1', 'user-1', '918273', 'pw-plain-3', 'pw-2', 'user-2'])
      assert.ok(!doc.includes(v), `${v} in ${doc}`);
    assert.ok(doc.includes('auth-secret'), 'a Secret name is no credential');
    assert.ok(doc.includes('RedisService cache/bad: spec.settings.auth.plain.password: <redacted>'), doc);
  });
});
