// The soak's two processes and what they say to each other (bench/soak.ts forks bench/soak-mesh.ts). The bench
// process runs only `aeraki serve` and measures it; the mesh process runs the fake API server, the fake istiod,
// the RDS stream clients and the changes, as other processes do in a real mesh. They speak over the fork's IPC
// channel, in a fixed order:
//   mesh: ready (addresses)      -> bench starts serve, waits for its sources to sync -> bench: synced
//   mesh: filtered (first sync)  -> bench: rds (port)  -> mesh opens the streams       -> mesh: streaming
//   bench takes its start figures -> bench: churn      -> mesh makes the changes, waits the last debounce
//   mesh: churned                -> bench takes its end figures, sends its last store events -> bench: summarize
//   mesh: summary (closes its streams) -> bench stops serve -> bench: stop -> mesh closes the fakes and exits.
// Times cross the channel as wall-clock milliseconds (Date.now): both processes run on one machine and read the
// same clock, so a change handed over in the mesh process and its store event in the bench process compare.
import { Inbox } from '../test/fakes/rds-client.ts';
import type { SoakRds } from './soak-streams.ts';

/** What both processes read from the environment (the same variables, inherited by the fork). */
export interface SoakSettings {
  /** SOAK_SERVICES (default 10,000) and SOAK_STREAMS (default 1,000, at most the services): a smaller mesh. */
  readonly services: number;
  readonly streams: number;
  /** SOAK_RDS: the streams' protocol by connection (default every one SotW; `delta`; `mixed`, in turn). */
  readonly rds: SoakRds;
  /** SOAK_SUBSCRIBERS (default 1): streams per route, so a route's acknowledgement waits for that many proxies. */
  readonly subscribers: number;
  /** SOAK_MINUTES (default 10): how long the changes run. */
  readonly minutes: number;
  readonly changesPerSecond: number;
  /** The reconciler's debounce; the mesh waits its maximum (and 2 s) after the last change. */
  readonly debounce: { readonly afterMs: number; readonly maxMs: number };
  /** The route source's debounce (--rds-debounce-after, --rds-debounce-max): what a route change waits to be pushed. */
  readonly rdsDebounce: { readonly afterMs: number; readonly maxMs: number };
  /** SOAK_ISTIOD_PUSH=kind: the fake istiod re-sends only the changed kind's type URLs (default every one). */
  readonly istiodPush: 'all' | 'kind';
  /** SOAK_LOG=1: the controller's warnings; SOAK_RUNS=1: each reconcile run (both printed by the bench process). */
  readonly log: boolean;
  readonly runs: boolean;
  /** SOAK_MEMORY=SECONDS: the controller's memory parts every SECONDS during the churn (0, the default: never). */
  readonly memoryEverySeconds: number;
  /** SOAK_HEAP_SNAPSHOT=FILE: a heap snapshot of the controller at the end of the churn. */
  readonly heapSnapshot: string | undefined;
}

/** A positive whole number from `env[name]`, or `fallback` when unset. */
function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const n = Number(env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a whole number above 0, got ${env[name]}`);
  return n;
}

export function soakSettings(env: NodeJS.ProcessEnv = process.env): SoakSettings {
  const minutes = Number(env['SOAK_MINUTES'] ?? '10');
  if (!(minutes > 0)) throw new Error(`SOAK_MINUTES must be a number above 0, got ${env['SOAK_MINUTES']}`);
  const services = count(env, 'SOAK_SERVICES', 10_000);
  const rds = env['SOAK_RDS'] ?? 'sotw';
  if (rds !== 'sotw' && rds !== 'delta' && rds !== 'mixed')
    throw new Error(`SOAK_RDS must be sotw, delta or mixed, got ${rds}`);
  const streams = Math.min(services, count(env, 'SOAK_STREAMS', 1000));
  const subscribers = count(env, 'SOAK_SUBSCRIBERS', 1);
  // The changes alternate over the even services among the watched ones: at least two are needed.
  if (streams < 2 * subscribers)
    throw new Error(
      `SOAK_SUBSCRIBERS must leave at least 2 routes watched, got ${subscribers} for ${streams} streams`,
    );
  return {
    services,
    streams,
    rds,
    subscribers,
    minutes,
    changesPerSecond: 5,
    debounce: { afterMs: 1000, maxMs: 10_000 },
    rdsDebounce: { afterMs: 100, maxMs: 1000 },
    istiodPush: env['SOAK_ISTIOD_PUSH'] === 'kind' ? 'kind' : 'all',
    log: Boolean(env['SOAK_LOG']),
    runs: Boolean(env['SOAK_RUNS']),
    memoryEverySeconds: Number(env['SOAK_MEMORY'] ?? '0') || 0,
    heapSnapshot: env['SOAK_HEAP_SNAPSHOT'] || undefined,
  };
}

/** A change applied by the controller's store (its ConfigEvent), as the bench process posts it. */
export interface StoreArrival {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** When the store applied it (Date.now in the bench process). */
  readonly at: number;
}

/** What the mesh process measured, sent once at the end. */
export interface MeshSummary {
  readonly changes: number;
  readonly byKind: Record<string, number>;
  readonly write: Record<string, number>;
  readonly push: Record<string, number>;
  readonly arrival: Record<string, number>;
  readonly arrivalByKind: Record<string, Record<string, number>>;
  readonly unaskedDeletions: number;
  readonly unaskedDeletionNames: readonly string[];
  readonly apiCalls: number;
  readonly apiCallsByVerb: Record<string, number>;
  readonly streamErrors: number;
  /** The mesh process's resident memory and V8 heap after a full collection, at the end. */
  readonly rssMb: number;
  readonly heapMb: number;
  readonly eventLoopDelayP99Ms: number;
  readonly eventLoopDelayMaxMs: number;
}

export type ToMesh =
  | { readonly type: 'synced' }
  | { readonly type: 'rds'; readonly port: number }
  | { readonly type: 'churn' }
  | { readonly type: 'store'; readonly events: readonly StoreArrival[] }
  | { readonly type: 'summarize' }
  | { readonly type: 'stop' };

export type FromMesh =
  | {
      readonly type: 'ready';
      readonly api: { url: string; caPem: string | undefined };
      readonly istiod: string;
    }
  | { readonly type: 'filtered'; readonly filters: number }
  | { readonly type: 'streaming' }
  | { readonly type: 'churned' }
  | { readonly type: 'summary'; readonly summary: MeshSummary }
  | { readonly type: 'failed'; readonly error: string };

type Message = { readonly type: string };

/**
 * One side's view of the channel: messages arrive in the order above and are taken with `expect`, which fails on
 * a message out of order, after `timeoutMs`, or once the other side failed or went away (`end`).
 */
export class SoakChannel<In extends Message, Out extends Message> {
  private readonly inbox = new Inbox<In>();
  private fail!: (e: Error) => void;
  private readonly failed = new Promise<never>((_, reject) => (this.fail = reject));

  constructor(private readonly post: (m: Out) => void) {
    this.failed.catch(() => undefined); // observed through expect and alive
  }

  send(m: Out): void {
    this.post(m);
  }

  receive(m: In): void {
    this.inbox.push(m);
  }

  /** Fails every wait, now and later, with `err`. */
  end(err: Error): void {
    if (this.inbox.ended) return;
    this.inbox.end(err);
    this.fail(err);
  }

  /** `p`, unless the channel ends first. */
  alive<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.failed]);
  }

  get ended(): Error | undefined {
    return this.inbox.ended;
  }

  async expect<T extends In['type']>(type: T, timeoutMs: number): Promise<Extract<In, { type: T }>> {
    const m = await this.inbox.next(timeoutMs).catch((e: Error) => {
      throw (
        this.inbox.ended ??
        new Error(`soak: no '${type}' message within ${Math.round(timeoutMs / 1000)} s`, { cause: e })
      );
    });
    if (m.type !== type) throw new Error(`soak: expected the message '${type}', got '${m.type}'`);
    return m as Extract<In, { type: T }>;
  }
}

const mb = (n: number) => Math.round((n / 2 ** 20) * 10) / 10;

/** Resident memory and V8 heap in use after a full collection (heap growth is retention; the rest, the allocator). */
export function memoryMb(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: mb(m.rss), heap: mb(m.heapUsed) };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
