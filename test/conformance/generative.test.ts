// Generative tests: thousands of random port names and randomly mutated fixture objects go through the whole
// pipeline (parse -> store -> generateAll -> route builder). Nothing may throw, and every generated name must be a
// valid Kubernetes object name. The random source is seeded, so a failure is reproducible.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fillStore, parseRawObjects } from '../../src/controller/file-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { applicationProtocolOf, detectProtocol } from '../../src/model/protocol.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { isDns1123Subdomain } from '../../src/util/names.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { assertIssueShape, loadCorpus } from './corpus.ts';

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
  const parsed = parseRawObjects(raws, 'istio-system');
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

describe('generative', () => {
  it('random port names never throw and never give an invalid filter name', () => {
    const r = rng(20261130);
    for (let i = 0; i < 3000; i++) {
      const name = randomPortName(r);
      detectProtocol(name);
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
