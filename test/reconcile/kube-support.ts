// Wiring for suites that run the reconciler against the fake kube-apiserver over real HTTP.
import assert from 'node:assert/strict';
import type { KubeConfig } from '@kubernetes/client-node';
import { createKubeSink } from '../../src/reconcile/kube-sink.ts';
import { LeaderElector } from '../../src/leader/leader-election.ts';
import { createKubeLeaseClient } from '../../src/leader/lease-client.ts';
import { Reconciler, type DesiredSet } from '../../src/reconcile/reconciler.ts';
import { leaderLoopPart, Runtime } from '../../src/kit/runtime.ts';
import type { EnvoyFilterSink } from '../../src/reconcile/sink.ts';
import type { Clock, ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import type { FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { refClock } from './support.ts';

export const ROOT = 'istio-system';
export const LEASE = 'aeraki-controller';

/** Polls `pred` every 10 ms until it holds; rejects with `what` after `timeoutMs`. */
export async function waitFor(pred: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Something that reports events: subscribes `wake`, returns the unsubscribe function. */
export type Wake = (wake: () => void) => () => void;

/** Every request the fake API server records. */
export const requests =
  (api: FakeKubeApiServer): Wake =>
  (wake) =>
    api.onRequest(() => wake());

/** Every run of a reconciler. */
export const runs =
  (rec: Reconciler): Wake =>
  (wake) =>
    rec.onRun(() => wake());

/**
 * Resolves once `pred` holds: checked now and whenever one of `sources` reports (no polling); rejects with `what`
 * after `timeoutMs`.
 */
export function until(
  pred: () => boolean,
  what: string,
  sources: readonly Wake[],
  timeoutMs = 10_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const offs: (() => void)[] = [];
    const finish = (err?: Error): void => {
      clearTimeout(timer);
      for (const off of offs) off();
      if (err) reject(err);
      else resolve();
    };
    const check = (): void => {
      if (pred()) finish();
    };
    const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}`)), timeoutMs);
    for (const source of sources) offs.push(source(check));
    check();
  });
}

/** Fires due timers of the manual clock and awaits the runs they start until `done()` holds. */
export async function drive(
  clock: ManualClock,
  rec: Reconciler,
  done: () => boolean,
  what: string,
): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) {
    clock.runAll();
    await rec.idle();
  }
  assert.ok(done(), what);
}

export interface Replica {
  readonly id: string;
  readonly kc: KubeConfig;
  readonly rec: Reconciler;
  readonly elector: LeaderElector | undefined;
  stop(): Promise<void>;
}

export interface ReplicaOptions {
  desired: () => DesiredSet;
  isSynced?: () => boolean;
  heldSources?: () => Iterable<string>;
  election?: boolean;
  /** Wraps the sink (e.g. to check leadership at each write). */
  wrapSink?: (s: EnvoyFilterSink, id: string) => EnvoyFilterSink;
  /** The reconciler's clock (default: real time). */
  clock?: Clock;
}

/**
 * One replica: a reconciler against the fake API server; with `election`, a leader part of a runtime driving a
 * LeaderElector on the Lease (started on election, stopped on loss), as `aeraki serve` runs it.
 */
export function replica(api: FakeKubeApiServer, id: string, o: ReplicaOptions): Replica {
  const kc = fakeKubeConfig(api, { token: id });
  const elector = o.election
    ? new LeaderElector({
        client: createKubeLeaseClient(kc, ROOT, LEASE),
        identity: id,
        leaseDurationMs: 1500,
        renewDeadlineMs: 1000,
        retryPeriodMs: 200,
        clock: refClock,
        logger: silentLogger,
      })
    : undefined;
  const sink = createKubeSink(kc);
  const r = new Reconciler({
    sink: o.wrapSink ? o.wrapSink(sink, id) : sink,
    desired: o.desired,
    isSynced: o.isSynced ?? (() => true),
    ...(o.heldSources ? { heldSources: o.heldSources } : {}),
    quietMs: 20,
    maxWaitMs: 200,
    resyncMs: 0,
    retry: { initialMs: 50, maxMs: 400 },
    clock: o.clock ?? refClock,
    logger: silentLogger,
  });
  const runtime = elector ? new Runtime({ logger: silentLogger, elector }) : undefined;
  if (runtime) void runtime.start(leaderLoopPart('reconciler', r, () => r.trigger()));
  else r.start();
  return {
    id,
    kc,
    rec: r,
    elector,
    async stop() {
      if (runtime) await runtime.stop();
      else await r.stop();
    },
  };
}
