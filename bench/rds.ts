// RDS push benchmark: N concurrent mTLS StreamRoutes streams on loopback (one channel, i.e. one TLS connection,
// per stream, as proxies have), one MetaRouter change, time until every stream has the new version.
// The floor: writing the same pre-encoded response bytes to the same number of streams from a bare grpc-js server
// with the same credentials and the same client code.
import * as grpc from '@grpc/grpc-js';
import { ROUTE_CONFIGURATION_TYPE } from '../src/model/constants.ts';
import { silentLogger } from '../src/util/logger.ts';
import type { ConfigObject, MetaRouter } from '../src/model/objects.ts';
import { ConfigStore } from '../src/controller/store.ts';
import { loadRdsProtos } from '../src/xds-rds/protos.ts';
import { RouteSource } from '../src/xds-rds/route-source.ts';
import { RdsServer } from '../src/xds-rds/server.ts';
import { encodeSotwResponse } from '../src/xds-rds/responses.ts';
import { encodeSotwRequest, rdsRawClientDefinition } from '../src/tools/rds-codec.ts';
import { rdsServiceDefinition } from '../src/xds-rds/service.ts';
import { SnapshotCache } from '../src/xds-rds/snapshot.ts';
import { metaRouter, serviceEntry } from '../test/support/builders.ts';
import { testCa, writeCertDir } from '../test/fakes/test-ca.ts';

const SERVICES = 200;
const ROUNDS = 5;
const Client = grpc.makeGenericClientConstructor(rdsRawClientDefinition, 'RouteDiscoveryService');

export function world(subset: string): ConfigObject[] {
  const objects: ConfigObject[] = [];
  for (let i = 0; i < SERVICES; i++) {
    objects.push(
      serviceEntry('bench', `svc-${i}`, {
        hosts: [`svc-${i}.bench.svc.cluster.local`],
        ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
      }),
    );
  }
  const mr: MetaRouter = metaRouter('bench', 'hot', {
    hosts: ['svc-0.bench.svc.cluster.local'],
    routes: Array.from({ length: 10 }, (_, r) => ({
      name: `r${r}`,
      match: { attributes: { method: { exact: `m${r}` } } },
      route: [{ destination: { host: 'svc-0.bench.svc.cluster.local', subset: r === 9 ? subset : 'v1' } }],
      requestMutation: [],
      responseMutation: [],
    })),
  });
  objects.push(mr);
  return objects;
}

export function streamNames(i: number): string[] {
  return [
    'svc-0.bench.svc.cluster.local_20880',
    `svc-${(i % (SERVICES - 1)) + 1}.bench.svc.cluster.local_20880`,
  ];
}

export interface BenchStream {
  channel: grpc.Client;
  call: grpc.ClientDuplexStream<Buffer, Buffer>;
  /** Resolves the waiter when a response with the awaited marker arrives; rejects if the stream has ended. */
  waitFor(pred: (versionInfo: string, nonce: string) => boolean): Promise<number>;
}

export function openStreams(port: number, n: number, onFirst: () => void): BenchStream[] {
  const ca = testCa();
  const creds = grpc.credentials.createSsl(
    Buffer.from(ca.ca),
    Buffer.from(ca.clientKey),
    Buffer.from(ca.clientCert),
  );
  const p = loadRdsProtos();
  const streams: BenchStream[] = [];
  for (let i = 0; i < n; i++) {
    const channel = new Client(`localhost:${port}`, creds, { 'grpc.use_local_subchannel_pool': 1 });
    // waitForReady: a connection attempt that fails (a handshake refused or cut on a loaded machine) is retried
    // with the stream kept, as a proxy retries, instead of failing the stream before its first response.
    const call = (
      channel as unknown as Record<string, (m: grpc.Metadata) => grpc.ClientDuplexStream<Buffer, Buffer>>
    ).StreamRoutes!.call(channel, new grpc.Metadata({ waitForReady: true }));
    let waiter:
      | { pred: (v: string, n: string) => boolean; resolve: (t: number) => void; reject: (e: Error) => void }
      | undefined;
    let ended: Error | undefined;
    let first = true;
    call.on('data', (b: Buffer) => {
      const msg = p.DiscoveryResponse.decode(b) as unknown as { versionInfo: string; nonce: string };
      if (first) {
        first = false;
        onFirst();
      }
      if (waiter && waiter.pred(msg.versionInfo, msg.nonce)) {
        const w = waiter;
        waiter = undefined;
        w.resolve(performance.now());
      }
    });
    // A stream that ends fails the wait for it (a stalled benchmark otherwise, waiting for it forever).
    const end = (e: Error): void => {
      ended ??= new Error(`stream ${i} ended: ${e.message}`);
      waiter?.reject(ended);
      waiter = undefined;
    };
    call.on('error', end);
    call.on('end', () => end(new Error('closed by the server')));
    const names = streamNames(i);
    call.write(
      encodeSotwRequest({
        node: { id: `proxy-${i}` },
        typeUrl: ROUTE_CONFIGURATION_TYPE,
        resourceNames: names,
      }),
    );
    streams.push({
      channel,
      call,
      waitFor: (pred) =>
        new Promise((resolve, reject) => (ended ? reject(ended) : (waiter = { pred, resolve, reject }))),
    });
  }
  return streams;
}

export function closeStreams(streams: BenchStream[]): void {
  for (const s of streams) {
    s.call.cancel();
    s.channel.close();
  }
}

export function stats(times: number[]): { medianMs: number; maxMs: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    medianMs: +(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(2),
    maxMs: +(sorted.at(-1) ?? 0).toFixed(2),
  };
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function memory(): number {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

/** Every value of `waits`; throws, naming `what` and how many arrived, if they have not all come in `timeoutMs`. */
export async function allWithin<T>(waits: Promise<T>[], what: string, timeoutMs = 120_000): Promise<T[]> {
  let arrived = 0;
  const counted = waits.map((w) => w.then((v) => (arrived++, v)));
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`no progress for ${timeoutMs / 1000} s: ${what}: ${arrived} of ${waits.length}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([Promise.all(counted), limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until `cond` holds; throws, naming `what` (e.g. how many of how many are ready), after `timeoutMs`. */
export async function waitUntil(cond: () => boolean, what: () => string, timeoutMs = 120_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`no progress for ${timeoutMs / 1000} s: ${what()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function runOnce(n: number): Promise<Record<string, unknown>> {
  const certs = writeCertDir();
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  for (const o of world('v1')) store.upsert(o);
  const cache = new SnapshotCache();
  const source = new RouteSource(store, cache, { logger: silentLogger });
  source.rebuild();
  const server = new RdsServer({ host: '127.0.0.1', port: 0, logger: silentLogger, tls: certs }, cache);
  const port = await server.start();

  // Everything opened is closed again, whether the run completes or fails (the next benchmark runs in this
  // process).
  let streams: BenchStream[] = [];
  let floorStreams: BenchStream[] = [];
  let floorServer: grpc.Server | undefined;
  try {
    const memBefore = memory();
    let ready = 0;
    const openStart = performance.now();
    streams = openStreams(port, n, () => ready++);
    await waitUntil(
      () => ready === n,
      () => `${ready} of ${n} streams have their first response`,
    );
    const openMs = performance.now() - openStart;
    const memPerStream = (memory() - memBefore) / n;

    // The floor: a bare server with the same credentials, the same client code and the same number of streams.
    const calls: grpc.ServerDuplexStream<unknown, Buffer>[] = [];
    const bare = new grpc.Server({ 'grpc.max_concurrent_streams': 1_000_000 });
    floorServer = bare;
    bare.addService(rdsServiceDefinition, {
      StreamRoutes: (call: grpc.ServerDuplexStream<unknown, Buffer>) => {
        calls.push(call);
        call.write(encodeSotwResponse('initial', '1', []));
        call.on('error', () => {});
      },
      DeltaRoutes: () => {},
    });
    const ca = testCa();
    const floorPort = await new Promise<number>((resolve, reject) =>
      bare.bindAsync(
        '127.0.0.1:0',
        grpc.ServerCredentials.createSsl(
          Buffer.from(ca.ca),
          [{ cert_chain: Buffer.from(ca.serverCert), private_key: Buffer.from(ca.serverKey) }],
          true,
        ),
        (e, pt) => (e ? reject(e) : resolve(pt)),
      ),
    );
    ready = 0;
    floorStreams = openStreams(floorPort, n, () => ready++);
    await waitUntil(
      () => ready === n && calls.length === n,
      () => `floor: ${calls.length} of ${n} streams accepted, ${ready} answered`,
    );

    // Alternate rounds: one MetaRouter change (only svc-0's resource changes), then the floor writing the same
    // responses, pre-encoded before its clock starts. Figures are medians over the rounds.
    const before = {
      ...cache.stats,
      bytes: server.metrics.responseBytes,
      responses: server.metrics.responses,
    };
    const pushRounds: { medianMs: number; maxMs: number }[] = [];
    const floorRounds: { medianMs: number; maxMs: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const oldVersion = cache.snapshot().version;
      const changedRouter = world(`v${round + 2}`).find((o) => o.kind === 'MetaRouter')!;
      const waits = streams.map((s) => s.waitFor((v) => v !== oldVersion));
      // The debounce (100 ms quiet by default) is left out: the clock starts at the rebuild it triggers.
      const t0 = performance.now();
      store.upsert(changedRouter);
      source.rebuild();
      pushRounds.push(
        stats((await allWithin(waits, `round ${round}: streams with the new version`)).map((t) => t - t0)),
      );

      const snap = cache.snapshot();
      const marker = `floor-${round}`;
      const floorBytes = Array.from({ length: n }, (_, i) =>
        encodeSotwResponse(
          marker,
          '2',
          streamNames(i).map((name) => snap.resources.get(name)!),
        ),
      );
      const floorWaits = floorStreams.map((s) => s.waitFor((v) => v === marker));
      const f0 = performance.now();
      calls.forEach((c, i) => c.write(floorBytes[i]!));
      floorRounds.push(stats((await allWithin(floorWaits, `floor round ${round}`)).map((t) => t - f0)));
    }
    const encodes = (cache.stats.resourceEncodes - before.resourceEncodes) / ROUNDS;
    const encodedBytes = (cache.stats.resourceBytes - before.resourceBytes) / ROUNDS;
    const responses = (server.metrics.responses - before.responses) / ROUNDS;
    const writtenBytes = (server.metrics.responseBytes - before.bytes) / ROUNDS;
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const push = {
      medianMs: med(pushRounds.map((r) => r.medianMs)),
      maxMs: med(pushRounds.map((r) => r.maxMs)),
    };
    const floor = {
      medianMs: med(floorRounds.map((r) => r.medianMs)),
      maxMs: med(floorRounds.map((r) => r.maxMs)),
    };
    const ratios = pushRounds.map((r, i) => r.maxMs / (floorRounds[i]?.maxMs ?? 1));

    return {
      streams: n,
      openAllMs: +openMs.toFixed(0),
      rounds: ROUNDS,
      push,
      resourceEncodesPerPush: encodes,
      encodedBytesPerPush: encodedBytes,
      responsesPerPush: responses,
      bytesWrittenPerPush: writtenBytes,
      memoryPerStreamKiB: +(memPerStream / 1024).toFixed(1),
      floor,
      pushToFloorRatio: +med(ratios).toFixed(2),
    };
  } finally {
    closeStreams(streams);
    closeStreams(floorStreams);
    await server.stop();
    floorServer?.forceShutdown();
    source.stop();
    certs.remove();
  }
}

/** Runs the RDS benchmark for 100 and 1,000 streams; prints and returns the figures. */
export async function benchRds(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const n of [100, 1000]) {
    const r = await runOnce(n);
    console.log(JSON.stringify({ bench: 'rds', ...r }));
    out[`streams${n}`] = r;
  }
  out['note'] =
    'memoryPerStream includes the in-process client channel (TLS connection) of each stream; ratio = max push latency / max floor latency';
  return out;
}
