// Our own waypoint's snapshot (issue 39), run by `npm run bench -- waypoint`: a full build of one Gateway serving
// 1,000 and 10,000 service ports (WaypointTranslator.full: binding, chains, EDS clusters per subset with their
// endpoints; then AdsCache.apply into a fresh cache: every chain and resource encoded as protobuf, the Listener
// assembled), and the cost of one service change (alternately a VirtualService's traffic split and a pod of the
// service's endpoints: WaypointTranslator.update, then AdsCache.apply of what changed) against a full build at
// 10,000 in the same round; the target is at most 0.05. bench/README.md, "`waypoint`".
import { performance } from 'node:perf_hooks';
import { ConfigStore } from '../src/controller/store.ts';
import { OWN_WAYPOINT_CLASS } from '../src/model/ambient/own-waypoint.ts';
import type { Generator } from '../src/model/generator.ts';
import type { ConvertedService, VirtualService } from '../src/model/objects.ts';
import type { Protocol } from '../src/model/protocol.ts';
import { createGenerators } from '../src/plugins/registry.ts';
import { WaypointTranslator } from '../src/waypoint/incremental.ts';
import { AdsCache } from '../src/xds-rds/ads-cache.ts';
import { SnapshotCache } from '../src/xds-rds/snapshot.ts';
import { destinationRule, meta, virtualService } from '../test/support/builders.ts';
import { fakeGenerators, MemoryEndpoints } from '../test/waypoint/translate-support.ts';
import { median, round } from './figures.ts';

/** The target: one change at 10k at most this share of a full build at 10k. */
export const SHARE_TARGET = 0.05;
/** Changes timed per sample (their mean is the sample). */
const CHANGES = 200;
/** Rounds: WAYPOINT_ROUNDS (odd, 3 to 101), 7 by default. */
function rounds(value: string | undefined): number {
  const n = value === undefined ? 7 : Number(value);
  if (!Number.isInteger(n) || n < 3 || n > 101 || n % 2 === 0) {
    throw new Error(`WAYPOINT_ROUNDS=${value}: want an odd whole number from 3 to 101`);
  }
  return n;
}

const NAMESPACES = 50;
const PORT = 20880;
const nsOf = (i: number) => `ns-${i % NAMESPACES}`;
const hostOf = (i: number) => `svc-${i}.${nsOf(i)}.svc.cluster.local`;

/**
 * The generator of `tcp-dubbo` ports: the Dubbo plugin's own once it builds chains for our waypoint, else the tests'
 * `fake` generator (tcp_proxy over the VirtualService's weighted subsets) under the name dubbo.
 */
function dubboGenerator(): Generator {
  const plugin = createGenerators().find((g) => g.protocols.includes('dubbo'));
  if (plugin?.generateOwnWaypoint !== undefined) return plugin;
  const fake = fakeGenerators().byProtocol.get('fake') as Generator;
  return { ...fake, protocols: ['dubbo'] };
}

/** Service i's VirtualService: all to v1 at first (k < 0), then a split that differs from the service's previous one. */
function split(i: number, k: number): VirtualService {
  const host = hostOf(i);
  const w = 1 + (k % 98);
  const route =
    k < 0
      ? [{ destination: { host, subset: 'v1' } }]
      : [
          { destination: { host, subset: 'v1' }, weight: w },
          { destination: { host, subset: 'v2' }, weight: 100 - w },
        ];
  // `http` for the Dubbo plugin (its routes come from a VirtualService's http entries), `tcp` for the stand-in.
  return virtualService(nsOf(i), `svc-${i}`, {
    hosts: [host],
    http: [{ match: [], route }],
    tcp: [{ match: [], route }],
  });
}

interface Mesh {
  readonly store: ConfigStore;
  readonly endpoints: MemoryEndpoints;
  readonly translator: WaypointTranslator;
  /** The ADS cache the changes are applied to (a full build uses a fresh one). */
  readonly ads: AdsCache;
  readonly services: number;
  changes: number;
}

/** `services` Kubernetes Services with one Dubbo port, two subsets, a traffic split and three pods each. */
function mesh(services: number, byProtocol: ReadonlyMap<Protocol, Generator>): Mesh {
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  const endpoints = new MemoryEndpoints();
  for (let i = 0; i < services; i++) {
    const ns = nsOf(i);
    const service: ConvertedService = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(ns, `svc-${i}`),
      spec: {
        hosts: [hostOf(i)],
        addresses: [`10.${96 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`],
        ports: [{ number: PORT, name: 'tcp-dubbo', protocol: 'TCP' }],
      },
    };
    store.upsert(service);
    const subsets = ['v1', 'v2'].map((v) => ({ name: v, labels: { version: v } }));
    store.upsert(destinationRule(ns, `svc-${i}`, { host: hostOf(i), subsets }));
    store.upsert(split(i, -1));
    endpoints.set(
      { kind: 'Service', namespace: ns, name: `svc-${i}` },
      PORT,
      [0, 1, 2].map((p) => ({
        address: `10.1.${i & 255}.${p}`,
        port: PORT,
        labels: { version: `v${(p % 2) + 1}` },
      })),
    );
  }
  const ambient = store.readsAmbient();
  for (let n = 0; n < NAMESPACES; n++) {
    const labels = { 'istio.io/use-waypoint': 'wp', 'istio.io/use-waypoint-namespace': 'mesh' };
    ambient.set({ kind: 'Namespace', value: { name: `ns-${n}`, labels } });
  }
  const listener = { port: 15088, protocol: 'istio.io/PROXY', allowedNamespaces: { from: 'All' } };
  ambient.set({
    kind: 'KubernetesGateway',
    value: {
      namespace: 'mesh',
      name: 'wp',
      className: OWN_WAYPOINT_CLASS,
      inboundBinding: 'PROXY/15088',
      addressed: true,
      listeners: [listener],
    },
  });
  const translator = new WaypointTranslator({ view: store, ambient: store, endpoints, byProtocol });
  const first = translator.full();
  const carried = first[0]?.services.size ?? 0;
  if (carried !== services) throw new Error(`the Gateway carries ${carried} of ${services} services`);
  const ads = new AdsCache(new SnapshotCache());
  ads.apply(first);
  if (ads.problems > 0) throw new Error(`${ads.problems} resources did not encode`);
  return { store, endpoints, translator, ads, services, changes: 0 };
}

/** A full build: translate everything and encode it into a fresh ADS cache. */
function fullBuild(m: Mesh): void {
  new AdsCache(new SnapshotCache()).apply(m.translator.full());
}

/** Change k: alternately a service's traffic split and one of its pods (the store's and the view's own work untimed). */
function applyChange(m: Mesh): void {
  const k = m.changes++;
  const i = (k * 7919) % m.services;
  if (k % 2 === 0) m.store.upsert(split(i, k));
  else {
    const endpoints = [0, 1, 2].map((p) => ({
      address: `10.2.${k & 255}.${p}`,
      port: PORT,
      labels: { version: `v${(p % 2) + 1}` },
    }));
    m.endpoints.set({ kind: 'Service', namespace: nsOf(i), name: `svc-${i}` }, PORT, endpoints);
  }
}

function timed(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/** Mean ms of `update()` per change, and that each change touched one service. */
function perChange(m: Mesh): number {
  let total = 0;
  for (let c = 0; c < CHANGES; c++) {
    applyChange(m);
    let touched = 0;
    total += timed(() => {
      const changes = m.translator.update();
      m.ads.apply(changes);
      touched = changes.reduce((n, ch) => n + ch.services.size, 0);
    });
    if (touched !== 1) throw new Error(`change ${m.changes} touched ${touched} services`);
  }
  return total / CHANGES;
}

interface Round {
  readonly full: [number, number];
  readonly change: [number, number];
}

export async function benchWaypoint(): Promise<Record<string, unknown>> {
  const n = rounds(process.env['WAYPOINT_ROUNDS']);
  const generator = dubboGenerator();
  const byProtocol = new Map<Protocol, Generator>([['dubbo', generator]]);
  const [small, large] = [mesh(1000, byProtocol), mesh(10000, byProtocol)];
  for (const m of [small, large]) perChange(m); // warm-up
  const samples: Round[] = [];
  for (let r = 0; r < n; r++) {
    samples.push({
      full: [timed(() => fullBuild(small)), timed(() => fullBuild(large))],
      change: [perChange(small), perChange(large)],
    });
    await new Promise((resolve) => setImmediate(resolve));
  }
  small.translator.stop();
  large.translator.stop();
  const med = (f: (s: Round) => number) => median(samples.map(f));
  const fig = (f: (s: Round) => number, digits = 1000) => Math.round(med(f) * digits) / digits;
  const figures = {
    generator: generator.generateOwnWaypoint === undefined ? 'none' : generator.name,
    rounds: n,
    fullMs1k: round(med((s) => s.full[0])),
    fullMs10k: round(med((s) => s.full[1])),
    fullGrowth: round(med((s) => s.full[1] / s.full[0])),
    changeMs1k: fig((s) => s.change[0]),
    changeMs10k: fig((s) => s.change[1]),
    changeGrowth: round(med((s) => s.change[1] / s.change[0])),
    changeOverFull10k: fig((s) => s.change[1] / s.full[1], 10000),
    changeOverFullTarget: SHARE_TARGET,
  };
  console.log(JSON.stringify(figures, null, 2));
  return figures;
}
