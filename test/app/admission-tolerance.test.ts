// Admission is strict, the controller tolerant (DESIGN habit 12): for each rule of admission hygiene, `render`
// renders the object as Aeraki's controller does with a `warning:` line while `validate` prints the same line as
// an `error:`; a sample of the rules that stay errors everywhere; and what is held because an object it depends on
// is invalid, named in render (EnvoyFilters and routes) and in /debug/config.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { configDocument } from '../../src/app/debug.ts';
import { render } from '../../src/app/render.ts';
import { validateFiles } from '../../src/app/validate.ts';
import { fillStore, loadConfigFiles } from '../../src/controller/file-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { issueLine } from '../../src/model/result.ts';
import { PLUGIN_KINDS } from '../support/kinds.ts';

const HOST = 'orders.shop.svc.cluster.local';
const ROOT = 'istio-system';
const dir = mkdtempSync(join(tmpdir(), 'aeraki-tolerance-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SERVICE = {
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { name: 'orders', namespace: 'shop' },
  spec: {
    hosts: [HOST],
    addresses: ['240.240.0.1'],
    ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
    resolution: 'STATIC',
  },
};
const route = (extra: Record<string, unknown> = {}) => ({
  route: [{ destination: { host: HOST, subset: 'v1' } }],
  ...extra,
});
const metaRouter = (spec: Record<string, unknown>) => ({
  apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
  kind: 'MetaRouter',
  metadata: { name: 'orders-route', namespace: 'shop' },
  spec: { hosts: [HOST], routes: [route()], ...spec },
});
const istio = (kind: string, spec: Record<string, unknown>) => ({
  apiVersion: 'networking.istio.io/v1',
  kind,
  metadata: { name: 'orders', namespace: 'shop' },
  spec,
});

let n = 0;
function write(objects: readonly unknown[]): string {
  const file = join(dir, `case-${n++}.yaml`);
  writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
  return file;
}

interface Case {
  readonly name: string;
  readonly objects: readonly unknown[];
  /** The problem, as both print it after `error: ` / `warning: `. */
  readonly line: string;
  /**
   * What validate prints after `error: ` where it differs: the rule alone, without what the controller makes of it
   * (admission refuses the object, so no consequence follows). Absent: `line`.
   */
  readonly admission?: string;
  /** The service has no MetaProtocol port: `render --routes` has nothing to render. */
  readonly noRoutes?: boolean;
}

const MR = 'MetaRouter shop/orders-route';
const split = (a: number, b: number) => [
  { destination: { host: HOST, subset: 'v1' }, weight: a },
  { destination: { host: HOST, subset: 'v2' }, weight: b },
];

/** One case per rule of admission hygiene (or tight group): render warns and renders, validate errs. */
const HYGIENE: readonly Case[] = [
  {
    name: 'MetaRouter with two hosts',
    objects: [SERVICE, metaRouter({ hosts: [HOST, 'other.shop.svc.cluster.local'] })],
    line: `${MR}: spec.hosts: a MetaRouter must have exactly one host, got 2: it applies to the ServiceEntry of each of them`,
    admission: `${MR}: spec.hosts: a MetaRouter must have exactly one host, got 2`,
  },
  {
    name: 'MetaRouter with nothing in it',
    objects: [SERVICE, metaRouter({ routes: [] })],
    line: `${MR}: spec: a MetaRouter needs at least one of routes, globalRateLimit or localRateLimit: this one changes nothing (the default route is served)`,
    admission: `${MR}: spec: a MetaRouter needs at least one of routes, globalRateLimit or localRateLimit`,
  },
  {
    name: 'null attribute match',
    objects: [SERVICE, metaRouter({ routes: [route({ match: { attributes: { method: null } } })] })],
    line: `${MR}: spec.routes[0].match.attributes.method: an attribute match must not be null: it matches when the attribute is present (write regex: ".*")`,
    admission: `${MR}: spec.routes[0].match.attributes.method: an attribute match must not be null (write regex: ".*" to match when the attribute is present)`,
  },
  {
    name: 'regex "*"',
    objects: [
      SERVICE,
      metaRouter({ routes: [route({ match: { attributes: { method: { regex: '*' } } } })] }),
    ],
    line: `${MR}: spec.routes[0].match.attributes.method.regex: "*" is not a valid RE2 regex: it matches when the attribute is present (write ".*")`,
    admission: `${MR}: spec.routes[0].match.attributes.method.regex: "*" is not a valid RE2 regex (write ".*" to match when the attribute is present)`,
  },
  {
    name: 'empty mutation value',
    objects: [SERVICE, metaRouter({ routes: [route({ requestMutation: [{ key: 'k', value: '' }] })] })],
    line: `${MR}: spec.routes[0].requestMutation[0].value: a mutation value must not be empty: it is set to ""`,
    admission: `${MR}: spec.routes[0].requestMutation[0].value: a mutation value must not be empty`,
  },
  {
    name: 'mirrorPercentage without mirror',
    objects: [SERVICE, metaRouter({ routes: [route({ mirrorPercentage: { value: 10 } })] })],
    line: `${MR}: spec.routes[0].mirrorPercentage: mirrorPercentage needs mirror: there is nothing to mirror to, so it is ignored`,
    admission: `${MR}: spec.routes[0].mirrorPercentage: mirrorPercentage needs mirror: there is nothing to mirror to`,
  },
  {
    name: 'mirrorPercentage 0',
    objects: [
      SERVICE,
      metaRouter({
        routes: [route({ mirror: { host: HOST, subset: 'v2' }, mirrorPercentage: { value: 0 } })],
      }),
    ],
    line: `${MR}: spec.routes[0].mirrorPercentage.value: must be above 0 and at most 100, got 0: 0 means 100 %`,
    admission: `${MR}: spec.routes[0].mirrorPercentage.value: must be above 0 and at most 100, got 0`,
  },
  {
    name: 'subset not a DNS-1123 label',
    objects: [SERVICE, metaRouter({ routes: [{ route: [{ destination: { host: HOST, subset: 'V_1' } }] }] })],
    line: `${MR}: spec.routes[0].route[0].destination.subset: "V_1" is not a DNS-1123 label (lower-case letters, digits and "-", at most 63): Istio refuses such a DestinationRule subset name`,
  },
  {
    name: 'destination port 0',
    objects: [
      SERVICE,
      metaRouter({ routes: [{ route: [{ destination: { host: HOST, port: { number: 0 } } }] }] }),
    ],
    line: `${MR}: spec.routes[0].route[0].destination.port.number: must be between 1 and 65535, got 0: the service's port is used`,
    admission: `${MR}: spec.routes[0].route[0].destination.port.number: must be between 1 and 65535, got 0`,
  },
  {
    name: 'weights adding up to 90',
    objects: [SERVICE, metaRouter({ routes: [{ route: split(30, 60) }] })],
    line: `${MR}: spec.routes[0].route: the weights of several destinations must add up to 100, got 90: traffic is split in proportion to them`,
    admission: `${MR}: spec.routes[0].route: the weights of several destinations must add up to 100, got 90`,
  },
  {
    name: 'a weight above 100',
    objects: [SERVICE, metaRouter({ routes: [{ route: [{ destination: { host: HOST }, weight: 120 }] }] })],
    line: `${MR}: spec.routes[0].route[0].weight: must be at most 100, got 120`,
  },
  {
    name: 'exportTo with a repeated entry',
    objects: [SERVICE, metaRouter({ exportTo: ['apps', 'apps'] })],
    line: `${MR}: spec.exportTo[1]: duplicate entry "apps"`,
  },
  {
    name: 'exportTo "*" beside others',
    objects: [SERVICE, metaRouter({ exportTo: ['*', 'apps'] })],
    line: `${MR}: spec.exportTo: "*" (the root namespace) cannot be combined with other entries: each entry gets a copy`,
    admission: `${MR}: spec.exportTo: "*" (the root namespace) cannot be combined with other entries`,
  },
  {
    name: 'tokensPerFill 0',
    objects: [
      SERVICE,
      metaRouter({ localRateLimit: { tokenBucket: { maxTokens: 5, tokensPerFill: 0, fillInterval: '1s' } } }),
    ],
    line: `${MR}: spec.localRateLimit.tokenBucket.tokensPerFill: must be at least 1, got 0: left out, so 1 token is added per fill`,
    admission: `${MR}: spec.localRateLimit.tokenBucket.tokensPerFill: must be at least 1, got 0`,
  },
  {
    name: 'a rate-limit condition without tokenBucket',
    objects: [
      SERVICE,
      metaRouter({
        localRateLimit: {
          tokenBucket: { maxTokens: 5, tokensPerFill: 1, fillInterval: '1s' },
          conditions: [{ match: { attributes: { method: { exact: 'a' } } } }],
        },
      }),
    ],
    line: `${MR}: spec.localRateLimit.conditions[0].tokenBucket: required field is missing: this condition is dropped`,
    admission: `${MR}: spec.localRateLimit.conditions[0].tokenBucket: required field is missing`,
  },
  {
    name: 'VirtualService timeout in microseconds',
    objects: [
      { ...SERVICE, spec: { ...SERVICE.spec, ports: [{ number: 20880, name: 'tcp-dubbo' }] } },
      istio('VirtualService', {
        hosts: [HOST],
        http: [{ route: [{ destination: { host: HOST } }], timeout: '1500us' }],
      }),
    ],
    line: 'VirtualService shop/orders: spec.http[0].timeout: 0.001500s: only durations in whole milliseconds are supported',
    noRoutes: true,
  },
  {
    name: 'DestinationRule connection pool number negative',
    objects: [
      SERVICE,
      istio('DestinationRule', {
        host: HOST,
        trafficPolicy: { connectionPool: { tcp: { maxConnections: -1 } } },
      }),
    ],
    line: 'DestinationRule shop/orders: spec.trafficPolicy.connectionPool.tcp.maxConnections: must not be negative, got -1',
  },
  {
    name: 'ServiceEntry endpoint not an IP for STATIC',
    objects: [{ ...SERVICE, spec: { ...SERVICE.spec, endpoints: [{ address: 'db.example.com' }] } }],
    line: 'ServiceEntry shop/orders: spec.endpoints[0].address: "db.example.com" is not an IP address: STATIC resolution needs IP endpoints',
  },
];

/** A sample of the rules that stay errors everywhere. */
const ERRORS: readonly Case[] = [
  {
    name: 'weights adding up to 0',
    objects: [SERVICE, metaRouter({ routes: [{ route: split(0, 0) }] })],
    line: `${MR}: spec.routes[0].route: the weights of several destinations add up to 0: no destination gets traffic`,
  },
  {
    name: 'invalid RE2 regex',
    objects: [
      SERVICE,
      metaRouter({ routes: [route({ match: { attributes: { method: { regex: '(?=a)' } } } })] }),
    ],
    line: `${MR}: spec.routes[0].match.attributes.method.regex: not a valid RE2 regex`,
  },
  {
    name: 'empty mutation key',
    objects: [SERVICE, metaRouter({ routes: [route({ responseMutation: [{ key: '', value: 'v' }] })] })],
    line: `${MR}: spec.routes[0].responseMutation[0].key: a mutation key must not be empty`,
  },
  {
    name: 'exportTo "~"',
    objects: [SERVICE, metaRouter({ exportTo: ['~'] })],
    line: `${MR}: spec.exportTo[0]: "~" (export to no namespace) is not supported: there would be no namespace to put filters in`,
  },
  {
    name: 'ServiceEntry port 0',
    objects: [
      { ...SERVICE, spec: { ...SERVICE.spec, ports: [{ number: 0, name: 'tcp-metaprotocol-dubbo' }] } },
    ],
    line: 'ServiceEntry shop/orders: spec.ports[0].number: must be between 1 and 65535, got 0',
  },
];

function run(objects: readonly unknown[], routes: boolean) {
  const file = write(objects);
  const options = { rootNamespace: ROOT, namespaceScope: false };
  const rendered = render({ files: [file], output: 'json', routes, ...options });
  return {
    rendered: rendered.issues.map(issueLine),
    items: (JSON.parse(rendered.stdout) as { items: unknown[] }).items,
    validated: validateFiles({ files: [file], ...options }).map(issueLine),
  };
}

describe('rules of admission hygiene: render renders as Aeraki does and warns, validate errs', () => {
  for (const c of HYGIENE) {
    it(c.name, () => {
      for (const routes of c.noRoutes ? [false] : [false, true]) {
        const r = run(c.objects, routes);
        assert.ok(r.rendered.includes(`warning: ${c.line}`), `render ${routes}:\n${r.rendered.join('\n')}`);
        assert.ok(!r.rendered.some((l) => l.startsWith('error:')), r.rendered.join('\n'));
        assert.ok(r.items.length > 0, 'rendered');
        if (!routes) {
          assert.ok(r.validated.includes(`error: ${c.admission ?? c.line}`), r.validated.join('\n'));
          if (c.admission !== undefined) assert.ok(!r.validated.includes(`error: ${c.line}`));
        }
      }
    });
  }
});

describe('rules that stay errors: render and validate both refuse', () => {
  for (const c of ERRORS) {
    it(c.name, () => {
      const r = run(c.objects, false);
      assert.ok(
        r.rendered.some((l) => l.startsWith(`error: ${c.line}`)),
        r.rendered.join('\n'),
      );
      assert.ok(
        r.validated.some((l) => l.startsWith(`error: ${c.line}`)),
        r.validated.join('\n'),
      );
    });
  }
});

describe('what is held is named', () => {
  // serve (/debug/config) keeps what it wrote before; an offline render leaves the object out of its output.
  const HELD =
    'ServiceEntry shop/orders: spec.hosts: held: DestinationRule shop/orders is invalid: not rendered until fixed ' +
    '(what was written before stays)';
  const HELD_OFFLINE =
    'ServiceEntry shop/orders: spec.hosts: held: DestinationRule shop/orders is invalid: left out of the output ' +
    'until fixed';
  // A DestinationRule of the ServiceEntry's namespace, invalid (a subset without a name) with no valid version.
  const invalidRule = istio('DestinationRule', { host: HOST, subsets: [{ labels: { version: 'v1' } }] });
  const objects = [SERVICE, invalidRule];
  const heldObjects = (list: readonly unknown[]) => {
    const loaded = loadConfigFiles([write(list)], { rootNamespace: ROOT, kinds: PLUGIN_KINDS });
    const store = new ConfigStore({ rootNamespace: ROOT, mesh: loaded.mesh });
    fillStore(store, loaded);
    return (configDocument(store, true) as { heldObjects: string[] }).heldObjects;
  };

  it('render (filters and routes) and validate print the held warning in offline words; nothing is rendered for it', () => {
    for (const routes of [false, true]) {
      const r = run(objects, routes);
      assert.ok(r.rendered.includes(`warning: ${HELD_OFFLINE}`), r.rendered.join('\n'));
      assert.ok(!r.rendered.some((l) => l.includes('what was written before stays')), r.rendered.join('\n'));
      assert.deepEqual(r.items, []);
    }
    assert.ok(run(objects, false).validated.includes(`warning: ${HELD_OFFLINE}`));
  });

  it('/debug/config lists it under heldObjects', () => {
    assert.deepEqual(heldObjects(objects), [HELD]);
  });

  it('an invalid MetaRouter (any namespace) or a DestinationRule of another namespace holds nothing: rendered', () => {
    const invalidRouter = metaRouter({ routes: [{ route: split(0, 0) }] });
    const elsewhere = (o: Record<string, unknown>) => ({
      ...o,
      metadata: { ...(o['metadata'] as Record<string, unknown>), namespace: 'other' },
    });
    for (const holder of [invalidRouter, elsewhere(invalidRouter), elsewhere(invalidRule)]) {
      for (const routes of [false, true]) {
        const r = run([SERVICE, holder], routes);
        assert.ok(!r.rendered.some((l) => l.includes('held: ')), r.rendered.join('\n'));
        assert.ok(r.items.length > 0, 'rendered');
      }
      assert.deepEqual(heldObjects([SERVICE, holder]), []);
    }
  });
});
