// The soak's mesh process (forked by bench/soak.ts; see bench/soak-ipc.ts for the order of messages): the fake
// kube-apiserver with the MetaRouters, the fake istiod with the ServiceEntries and DestinationRules, the RDS
// streams and the changes. Everything a change causes is matched here, where it is seen: its EnvoyFilter write in
// the API server's requests, its route in the streams' responses; its arrival in the controller's store comes
// from the bench process as store events. It dies with the bench process (a closed channel ends it) and reports
// its own failure before exiting.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ConfigObject } from '../src/model/objects.ts';
import { parseConfigObject } from '../src/model/parse/parse.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../test/fakes/kube-apiserver/index.ts';
import type { KubeObject } from '../test/fakes/kube-apiserver/types.ts';
import { FakeIstiod } from '../test/fakes/istiod/server.ts';
import { ChangeLog } from './soak-changes.ts';
import {
  memoryMb,
  sleep,
  soakSettings,
  SoakChannel,
  type FromMesh,
  type MeshSummary,
  type SoakSettings,
  type ToMesh,
} from './soak-ipc.ts';
import { openStreams, watchedServices, type SoakStreams } from './soak-streams.ts';
import { SYNTHETIC_PARSE_OPTIONS, syntheticObjects } from './synthetic.ts';

const MINUTE = 60_000;

/** The synthetic mesh split by where it lives: Istio kinds on istiod, MetaRouters on the API server. */
function mesh(services: number): { istio: ConfigObject[]; routers: KubeObject[] } {
  const istio: ConfigObject[] = [];
  const routers: KubeObject[] = [];
  for (const raw of syntheticObjects(services)) {
    if (raw['kind'] === 'MetaRouter') {
      routers.push(raw as unknown as KubeObject);
      continue;
    }
    const r = parseConfigObject(raw, SYNTHETIC_PARSE_OPTIONS);
    if (r?.ok) istio.push(r.value);
  }
  return { istio, routers };
}

/** Waits until the first sync wrote every filter and the writes stopped for a few seconds. */
async function firstSync(api: FakeKubeApiServer): Promise<number> {
  let last = -1;
  for (let i = 1; ; i++) {
    await sleep(3000);
    const n = api.list('envoyfilters.networking.istio.io').length;
    if (n === last && n > 0) return n;
    if (i % 10 === 0) console.log(`soak: ${n} EnvoyFilters written`);
    last = n;
  }
}

/** Every API request the controller makes during the churn, by verb; each is also matched to the changes. */
function countCalls(api: FakeKubeApiServer, log: ChangeLog) {
  const calls = { n: 0, byVerb: {} as Record<string, number> };
  const off = api.onRequest((r) => {
    calls.n++;
    const verb = r.verb ?? r.method;
    calls.byVerb[verb] = (calls.byVerb[verb] ?? 0) + 1;
    log.observed(r);
    api.clearRequests(); // counted here; the log would grow for hours
  });
  return { calls, off };
}

/** Makes the changes at their rate for the soak's duration. */
async function churn(s: SoakSettings, log: ChangeLog): Promise<void> {
  const durationMs = s.minutes * MINUTE;
  const began = Date.now();
  for (let k = 0; Date.now() - began < durationMs; k++) {
    log.change(k);
    const due = began + ((k + 1) * 1000) / s.changesPerSecond;
    await sleep(Math.max(0, due - Date.now()));
  }
}

async function run(s: SoakSettings, channel: SoakChannel<ToMesh, FromMesh>, log: (l: ChangeLog) => void) {
  const { istio, routers } = mesh(s.services);
  const api = await startFakeKubeApiServer({ eventWindow: 100_000 });
  api.seed(routers);
  const istiod = await FakeIstiod.start({ serve: 'v1', pushScope: s.istiodPush });
  let streams: SoakStreams | undefined;
  try {
    istiod.set(istio as Parameters<FakeIstiod['set']>[0]);
    const layout = { count: s.streams, rds: s.rds, subscribers: s.subscribers };
    const watched = watchedServices(layout);
    const changes = new ChangeLog({ api, istiod, istio, routers, watched });
    log(changes);
    channel.send({ type: 'ready', api: { url: api.url, caPem: api.caPem }, istiod: istiod.address });
    await channel.expect('synced', 30 * MINUTE);
    console.log('soak: config synced; first sync of the EnvoyFilters');
    channel.send({ type: 'filtered', filters: await firstSync(api) });
    const { port } = await channel.expect('rds', 5 * MINUTE);
    streams = await openStreams(port, layout, (route, at) => changes.pushed(route, at));
    channel.send({ type: 'streaming' });
    await channel.expect('churn', 5 * MINUTE);
    const { calls, off } = countCalls(api, changes);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    await churn(s, changes);
    await sleep(s.debounce.maxMs + 2000); // the last changes land
    delay.disable();
    off();
    channel.send({ type: 'churned' });
    await channel.expect('summarize', 5 * MINUTE); // after the bench process's last store events
    const end = memoryMb();
    const summary: MeshSummary = {
      ...changes.summary(),
      apiCalls: calls.n,
      apiCallsByVerb: calls.byVerb,
      streamErrors: streams.errors(),
      rssMb: end.rss,
      heapMb: end.heap,
      eventLoopDelayP99Ms: Math.round(delay.percentile(99) / 1e4) / 100,
      eventLoopDelayMaxMs: Math.round(delay.max / 1e4) / 100,
    };
    streams.close();
    streams = undefined;
    channel.send({ type: 'summary', summary });
    await channel.expect('stop', 5 * MINUTE);
  } finally {
    streams?.close();
    await istiod.close();
    await api.close();
  }
}

/** Reports `e` to the bench process, then exits (at once when the channel is already closed). */
function fail(e: unknown): void {
  const error = e instanceof Error ? (e.stack ?? e.message) : String(e);
  if (!process.connected) process.exit(1);
  process.send?.({ type: 'failed', error } satisfies FromMesh, () => process.exit(1));
}

function main(): void {
  const channel = new SoakChannel<ToMesh, FromMesh>((m) => process.send?.(m));
  let changes: ChangeLog | undefined;
  process.on('message', (raw) => {
    const m = raw as ToMesh;
    if (m.type !== 'store') return channel.receive(m);
    for (const e of m.events) changes?.arrived(e.kind, e.namespace, e.name, e.at);
  });
  process.on('disconnect', () => process.exit(1)); // the bench process is gone
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  run(soakSettings(), channel, (l) => (changes = l)).then(() => process.exit(0), fail);
}

if (!process.send)
  throw new Error('bench/soak-mesh.ts runs as the child of bench/soak.ts (npm run bench -- soak)');
main();
