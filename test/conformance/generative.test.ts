// Generative tests: thousands of random port names and randomly mutated fixture objects go through the whole
// pipeline (parse -> store -> generateAll -> route builder). Nothing may throw, and every generated name must be a
// valid Kubernetes object name. The random source is seeded, so a failure is reproducible.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fillStore, parseRawObjects } from '../../src/controller/file-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { applicationProtocolOf } from '../../src/model/protocol.ts';
import { severityOf } from '../../src/model/result.ts';
import { createGenerators, createProtocolNames } from '../../src/plugins/registry.ts';
import { isDns1123Subdomain } from '../../src/util/names.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { assertIssueShape, loadCorpus } from './corpus.ts';
import { PARSE_OPTIONS } from '../support/kinds.ts';

/** mulberry32: a tiny seeded PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEGMENTS = [
  'tcp',
  'TCP',
  'metaprotocol',
  'MetaProtocol',
  'dubbo',
  'Dubbo',
  'thrift',
  'trpc',
  '',
  'x',
  '9090',
  'redis',
  'kafka',
  'Kafka',
  'zookeeper',
  'ZooKeeper',
  'mongo',
  'mysql',
  'http',
  'v2',
  '*',
  'a/b',
  'A:B',
  ' ',
];

function randomPortName(r: () => number): string {
  const n = Math.floor(r() * 5);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(SEGMENTS[Math.floor(r() * SEGMENTS.length)] ?? '');
  return parts.join('-');
}

const WEIRD: unknown[] = [
  null,
  0,
  -1,
  1e12,
  65536,
  3.5,
  '',
  'UPPER.Case',
  '*',
  '10.0.0.0/8',
  'a:b:c',
  ' x ',
  true,
  [],
  {},
  [1, 'a'],
  { exact: 1 },
  'x'.repeat(300),
];

/** Replaces one randomly chosen node of a JSON-like tree (never the kind/apiVersion, so the object is still read). */
function mutate(value: unknown, r: () => number): unknown {
  const copy: unknown = structuredClone(value);
  const nodes: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (Array.isArray(v)) v.forEach((_, i) => (nodes.push({ parent: v, key: i }), walk(v[i], depth + 1)));
    else if (v && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        if (depth === 0 && (k === 'kind' || k === 'apiVersion')) continue;
        nodes.push({ parent: v as Record<string, unknown>, key: k });
        walk((v as Record<string, unknown>)[k], depth + 1);
      }
    }
  };
  walk(copy, 0);
  const target = nodes[Math.floor(r() * nodes.length)];
  if (target) {
    const choice = r();
    const replacement = choice < 0.15 ? undefined : WEIRD[Math.floor(r() * WEIRD.length)];
    if (Array.isArray(target.parent)) target.parent[target.key as number] = replacement;
    else if (replacement === undefined) delete target.parent[target.key as string];
    else target.parent[target.key as string] = replacement;
  }
  return copy;
}

function runPipeline(raws: readonly unknown[]): void {
  const parsed = parseRawObjects(raws, 'istio-system', [], PARSE_OPTIONS);
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  fillStore(store, parsed);
  const out = generateAll(store, createGenerators(), { namespaceScope: false });
  for (const o of out.objects)
    assert.ok(isDns1123Subdomain(o.metadata.name), `invalid name ${o.metadata.name}`);
  out.issues.forEach(assertIssueShape);
  for (const p of out.unhandledPorts) assertIssueShape(p.warning);
  const routes = buildRouteConfigurations(store);
  routes.issues.forEach(assertIssueShape);
  // An object without a name can only be named by kind: allowed when its missing name is itself reported.
  const unnamedReported = parsed.issues.some((i) => i.ref.name === '' && i.path.startsWith('metadata'));
  for (const i of parsed.issues) if (i.ref.name !== '' || !unnamedReported) assertIssueShape(i);
}

const POLICY_VALUES = [
  '*',
  '**',
  '*x',
  'x*',
  '',
  'a.b',
  '*cluster.local/ns/(a)/sa/[b]',
  'get*',
  '*.Health',
  'a*b',
  '^$|?+{}\\',
];
const POLICY_LISTS = {
  source: ['principals', 'notPrincipals', 'namespaces', 'notNamespaces'],
  operation: ['interfaces', 'notInterfaces', 'methods', 'notMethods'],
} as const;

/** A random DubboAuthorizationPolicy: random rules of random entries of random lists of tricky values. */
function randomPolicy(r: () => number, i: number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const lists = (names: readonly string[]) => {
    const out: Record<string, string[]> = {};
    for (const n of names)
      if (r() < 0.4) out[n] = Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(POLICY_VALUES));
    return out;
  };
  const entries = (key: 'source' | 'operation') =>
    Array.from({ length: Math.floor(r() * 3) }, () => (r() < 0.1 ? {} : { [key]: lists(POLICY_LISTS[key]) }));
  const rules = Array.from({ length: Math.floor(r() * 4) }, () => ({
    from: entries('source'),
    to: entries('operation'),
  }));
  return {
    apiVersion: 'dubbo.aeraki.io/v1alpha1',
    kind: 'DubboAuthorizationPolicy',
    metadata: { name: `p${i}`, namespace: r() < 0.3 ? 'istio-system' : 'rpc' },
    spec: { ...(r() < 0.5 ? { action: pick(['ALLOW', 'DENY']) } : {}), rules },
  };
}

/** What Envoy's RBAC validation requires of the generated config: no empty sets, prefixes or suffixes, valid regexes. */
function assertRbacValid(node: unknown, path: string): void {
  if (Array.isArray(node)) return node.forEach((x, i) => assertRbacValid(x, `${path}[${i}]`));
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    const p = `${path}.${k}`;
    if (k === 'ids' || k === 'rules' || k === 'permissions' || k === 'principals') {
      if (Array.isArray(v)) assert.ok(v.length > 0, `${p} is empty`);
    }
    if (k === 'prefix' || k === 'suffix') assert.ok(typeof v === 'string' && v !== '', `${p} is empty`);
    if (k === 'regex') assert.doesNotThrow(() => new RegExp(String(v), 'u'), `${p}: ${String(v)}`);
    assertRbacValid(v, p);
  }
}

const PROTOCOL_NAMES = createProtocolNames();

describe('generative', () => {
  it('random port names never throw and never give an invalid filter name', () => {
    const r = rng(20261130);
    for (let i = 0; i < 3000; i++) {
      const name = randomPortName(r);
      PROTOCOL_NAMES.detect(name);
      PROTOCOL_NAMES.unknownTcpSegment(name);
      applicationProtocolOf(
        name,
        { kind: 'ServiceEntry', namespace: 'ns', name: 'se' },
        'spec.ports[0].name',
      );
      const se = {
        apiVersion: 'networking.istio.io/v1',
        kind: 'ServiceEntry',
        metadata: { name: `se-${i}`, namespace: 'ns', annotations: { interface: 'I' } },
        spec: {
          hosts: [r() < 0.5 ? `Svc-${i}.Example.COM` : `*.svc-${i}.local`],
          addresses: r() < 0.2 ? [] : [r() < 0.5 ? '10.0.0.0/8' : `240.240.0.${i % 255}`],
          ports: [{ number: 1000 + (i % 60000), name, protocol: 'TCP' }],
          workloadSelector: { labels: { app: `a${i}` } },
        },
      };
      runPipeline([se]);
    }
  });

  it('random DubboAuthorizationPolicies give RBAC filters Envoy accepts', () => {
    const r = rng(45);
    let filters = 0;
    for (let round = 0; round < 200; round++) {
      const se = {
        apiVersion: 'networking.istio.io/v1',
        kind: 'ServiceEntry',
        metadata: { name: 'svc', namespace: 'rpc' },
        spec: {
          hosts: ['svc.rpc.svc.cluster.local'],
          ports: [{ number: 20880, name: 'tcp-dubbo', protocol: 'TCP' }],
          workloadSelector: { labels: { app: 'svc' } },
        },
      };
      const policies = Array.from({ length: 1 + Math.floor(r() * 4) }, (_, i) => randomPolicy(r, i));
      const store = new ConfigStore({ rootNamespace: 'istio-system' });
      const parsed = parseRawObjects([se, ...policies], 'istio-system', [], PARSE_OPTIONS);
      // Random values include ones that can never match (warnings), never errors.
      assert.deepEqual(
        parsed.issues.filter((i) => severityOf(i) === 'error'),
        [],
      );
      fillStore(store, parsed);
      const out = generateAll(store, createGenerators(), { namespaceScope: false });
      assert.deepEqual(
        out.issues.filter((i) => severityOf(i) === 'error'),
        [],
      );
      for (const o of out.objects) {
        const value = (o.spec as { configPatches: { patch: { value: unknown } }[] }).configPatches[0]?.patch
          .value;
        const chain = (value as { typed_config: { value: { dubboFilters: { name: string }[] } } })
          .typed_config.value.dubboFilters;
        const rbac = chain.filter((f) => f.name === 'envoy.filters.dubbo.rbac');
        filters += rbac.length;
        assertRbacValid(rbac, o.metadata.name);
      }
    }
    assert.ok(filters > 200, `only ${filters} RBAC filters generated`);
  });

  it('randomly mutated fixture objects never throw', () => {
    const r = rng(7);
    const corpus = loadCorpus();
    for (let round = 0; round < 40; round++) {
      for (const input of corpus) {
        const raws = input.raws.map((raw) => (r() < 0.5 ? mutate(raw, r) : raw));
        runPipeline(raws);
      }
    }
  });
});
