// /debug/config: every kind of the store, DubboAuthorizationPolicies included, and the rejected objects; no
// credential a plugin declares in any /debug/* document.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configDocument, envoyFiltersDocument, withoutSecrets } from '../../src/app/debug.ts';
import { parseRawObjects, fillStore } from '../../src/controller/file-source.ts';
import { trackChangeTimes } from '../../src/controller/change-times.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { secretPolicy } from '../../src/model/secret-fields.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { PARSE_OPTIONS, PLUGIN_KINDS } from '../support/kinds.ts';
import { destinationRuleRaw, metaEntry, ROOT } from '../support/lkg-objects.ts';
import { filter, MemorySink } from '../reconcile/support.ts';

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

// What each plugin kind's objects set, described by the plugin (the page names no kind), and when the store saw
// each object change, from its clock.
describe('/debug/config: settings and change times', () => {
  it("describes RedisService routes and mirrors, RedisDestination auth and DubboAuthorizationPolicies; no secret's value", () => {
    let now = Date.parse('2026-12-07T10:00:00.000Z');
    const store = new ConfigStore({ rootNamespace: 'istio-system', kinds: PLUGIN_KINDS, now: () => now });
    const obj = (apiVersion: string, kind: string, namespace: string, name: string, spec: unknown) => ({
      apiVersion,
      kind,
      metadata: { name, namespace },
      spec,
    });
    const objects = [
      obj('redis.aeraki.io/v1alpha1', 'RedisService', 'cache', 'rs', {
        host: ['redis.cache.svc.cluster.local'],
        redis: [
          {
            match: { key: { prefix: 'user:' } },
            route: { host: 'users.cache.svc.cluster.local', port: 6379 },
            mirror: [{ route: { host: 'shadow.cache.svc.cluster.local' }, percentage: { value: 25 } }],
          },
          { route: { host: 'redis.cache.svc.cluster.local' } },
        ],
        settings: { opTimeout: '1s', auth: { plain: { password: 'pw-9', username: 'user-9' } } },
      }),
      obj('redis.aeraki.io/v1alpha1', 'RedisDestination', 'cache', 'rd', {
        host: 'redis.cache.svc.cluster.local',
        trafficPolicy: {
          connectionPool: { redis: { mode: 'CLUSTER', auth: { secret: { name: 'redis-auth' } } } },
        },
      }),
      obj('dubbo.aeraki.io/v1alpha1', 'DubboAuthorizationPolicy', 'rpc', 'deny-x', {
        action: 'DENY',
        rules: [
          { from: [{ source: { namespaces: ['x'] } }], to: [{ operation: { methods: ['sayHello'] } }] },
        ],
      }),
      obj('dubbo.aeraki.io/v1alpha1', 'DubboAuthorizationPolicy', 'istio-system', 'mesh', {
        action: 'ALLOW',
      }),
    ];
    const parsed = parseRawObjects(objects, 'istio-system', [], PARSE_OPTIONS);
    assert.deepEqual(parsed.issues, []);
    const times = trackChangeTimes(store);
    fillStore(store, parsed);
    now += 60_000;
    const [first, ...rest] = parseRawObjects(
      [{ ...objects[1]!, spec: { ...(objects[1]!.spec as object), trafficPolicy: {} } }],
      'istio-system',
      [],
      PARSE_OPTIONS,
    ).objects;
    assert.equal(rest.length, 0);
    store.upsert(first!);
    const doc = configDocument(store, true, undefined, times) as {
      changedAt: Record<string, string>;
      settings: {
        ref: { kind: string; name: string };
        appliesTo: unknown;
        lines: { label: string; value: string }[];
        changedAt?: string;
      }[];
    };
    const text = JSON.stringify(doc);
    for (const v of ['pw-9', 'user-9']) assert.ok(!text.includes(v), v);
    const byName = new Map(doc.settings.map((s) => [s.ref.name, s]));
    assert.deepEqual(
      doc.settings.map((s) => `${s.ref.kind} ${s.ref.name}`),
      [
        'DubboAuthorizationPolicy mesh',
        'DubboAuthorizationPolicy deny-x',
        'RedisService rs',
        'RedisDestination rd',
      ],
    );
    const rs = byName.get('rs')!;
    assert.deepEqual(rs.appliesTo, { hosts: ['redis.cache.svc.cluster.local'] });
    assert.deepEqual(
      rs.lines.map((l) => `${l.label}: ${l.value}`),
      [
        'route: prefix "user:" → users.cache.svc.cluster.local:6379',
        'mirror: 25% of prefix "user:" to shadow.cache.svc.cluster.local',
        'route: every other key → redis.cache.svc.cluster.local',
        'settings: opTimeout 1s',
        'auth: written in the object (not shown)',
      ],
    );
    assert.deepEqual(byName.get('rd')!.lines, [], 'its new version has no pool');
    assert.equal(byName.get('rd')!.changedAt, '2026-12-07T10:01:00.000Z');
    assert.equal(rs.changedAt, '2026-12-07T10:00:00.000Z');
    assert.deepEqual(byName.get('deny-x')!.appliesTo, { protocol: 'dubbo', namespace: 'rpc' });
    assert.deepEqual(
      byName.get('deny-x')!.lines.map((l) => `${l.label}: ${l.value}`),
      ['action: DENY', 'rule 1: from namespaces x → methods sayHello'],
    );
    assert.deepEqual(byName.get('mesh')!.appliesTo, { protocol: 'dubbo', namespace: '*' });
    assert.equal(doc.changedAt['RedisDestination/cache/rd'], '2026-12-07T10:01:00.000Z');
    assert.equal(doc.changedAt['RedisService/cache/rs'], '2026-12-07T10:00:00.000Z');
    store.delete('RedisService', 'cache', 'rs');
    assert.equal(times.at('RedisService', 'cache', 'rs'), undefined);
    assert.equal(times.at('RedisDestination', 'cache', 'rd'), Date.parse('2026-12-07T10:01:00.000Z'));
  });

  it("names the Secret a RedisDestination's auth comes from, never a value", () => {
    const store = new ConfigStore({ rootNamespace: 'istio-system', kinds: PLUGIN_KINDS });
    const parsed = parseRawObjects(
      [
        {
          apiVersion: 'redis.aeraki.io/v1alpha1',
          kind: 'RedisDestination',
          metadata: { name: 'rd', namespace: 'cache' },
          spec: {
            host: 'redis.cache.svc.cluster.local',
            trafficPolicy: {
              connectionPool: {
                redis: { mode: 'PROXY', auth: { secret: { name: 'redis-auth', passwordField: 'pw' } } },
              },
            },
          },
        },
      ],
      'istio-system',
      [],
      PARSE_OPTIONS,
    );
    fillStore(store, parsed);
    const doc = configDocument(store, true) as {
      changedAt: Record<string, string>;
      settings: { lines: { label: string; value: string }[]; changedAt?: string }[];
    };
    assert.deepEqual(
      doc.settings[0]!.lines.map((l) => `${l.label}: ${l.value}`),
      ['mode: PROXY', 'auth: from Secret redis-auth (password key pw, username key username)'],
    );
    // Without the times tracked, none is listed.
    assert.equal(doc.settings[0]!.changedAt, undefined);
    assert.deepEqual(doc.changedAt, {});
  });
});

// EnvoyFilters written before and kept while their source is held are listed as kept, with their source.
describe('/debug/envoyfilters: kept filters', () => {
  it('lists the filters of a held service as kept (why: held), and the issues with their severity', async () => {
    const store = new ConfigStore({ rootNamespace: ROOT, kinds: PLUGIN_KINDS });
    fillStore(store, parseRawObjects([metaEntry, destinationRuleRaw(false)], ROOT, [], PARSE_OPTIONS));
    const sink = new MemorySink();
    sink.seed(filter(ROOT, 'aeraki-inbound-svc', 'ServiceEntry/shop/svc') as never);
    sink.seed(filter(ROOT, 'aeraki-outbound-svc', 'ServiceEntry/shop/svc') as never);
    sink.seed(filter(ROOT, 'aeraki-outbound-gone', 'ServiceEntry/shop/gone') as never);
    const doc = (await envoyFiltersDocument(store, createGenerators(), { namespaceScope: false }, sink)) as {
      desired: unknown[];
      keptFilters: { namespace: string; name: string; source: string; why: string }[];
      diff: { delete: string[] };
      issueList: { severity: string; object: string; text: string }[];
    };
    assert.deepEqual(doc.desired, []);
    assert.deepEqual(doc.keptFilters, [
      { namespace: ROOT, name: 'aeraki-inbound-svc', source: 'ServiceEntry/shop/svc', why: 'held' },
      { namespace: ROOT, name: 'aeraki-outbound-svc', source: 'ServiceEntry/shop/svc', why: 'held' },
    ]);
    assert.deepEqual(doc.diff.delete, ['EnvoyFilter/istio-system/aeraki-outbound-gone']);
    const held = doc.issueList.find((i) => i.object === 'ServiceEntry shop/svc');
    assert.equal(held?.severity, 'warning');
    assert.match(held?.text ?? '', /^spec\.hosts: held: DestinationRule shop\/dr is invalid/);
  });
});
