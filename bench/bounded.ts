// The bounds `npm run bench` (bench/run.ts) puts around each benchmark: a time limit, so one that stalls fails
// with a message naming it instead of hanging the run, and a check that it left the process as it found it (no
// server, socket, timer or child process still open once it has returned).

/** What one benchmark came to: its figures, or why it has none. */
export type Outcome =
  | { readonly ok: true; readonly figures: Record<string, unknown> }
  | { readonly ok: false; readonly timedOut: boolean; readonly message: string };

/** Minutes a benchmark may take: BENCH_TIMEOUT_MINUTES (default 15; for `soak`, SOAK_MINUTES + 15). */
export function timeLimitMinutes(name: string, env: NodeJS.ProcessEnv): number {
  const set = env['BENCH_TIMEOUT_MINUTES'];
  if (set !== undefined && set !== '') {
    const n = Number(set);
    if (!(n > 0)) throw new Error(`BENCH_TIMEOUT_MINUTES=${set}: want a number of minutes above 0`);
    return n;
  }
  return name === 'soak' ? Number(env['SOAK_MINUTES'] ?? '10') + 15 : 15;
}

/** Runs `run`, giving up after `minutes` (the benchmark's own work is left running: the caller should stop). */
export async function runBounded(
  name: string,
  run: () => Promise<Record<string, unknown>>,
  minutes: number,
): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<Outcome>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          ok: false,
          timedOut: true,
          message: `${name}: no result after ${minutes} minute(s) (BENCH_TIMEOUT_MINUTES); stalled`,
        }),
      minutes * 60_000,
    );
  });
  try {
    return await Promise.race([
      run().then(
        (figures): Outcome => ({ ok: true, figures }),
        (e: unknown): Outcome => ({
          ok: false,
          timedOut: false,
          message: `${name}: failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
        }),
      ),
      limit,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Open handles and requests of the process by kind (TCPSocketWrap, Timeout, ProcessWrap, ...). */
export function openResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
}

/** Kinds with more open than in `baseline`, with how many more; empty when none. */
function excess(baseline: ReadonlyMap<string, number>): Record<string, number> {
  const more: Record<string, number> = {};
  for (const [kind, n] of openResources()) {
    const extra = n - (baseline.get(kind) ?? 0);
    if (extra > 0) more[kind] = extra;
  }
  return more;
}

/**
 * Waits (up to `seconds`) until the process holds no more open resources of any kind than `baseline`; returns
 * what is still open beyond it then (empty when the benchmark cleaned up). Closing sockets and servers takes a
 * few turns of the event loop, hence the wait.
 */
export async function leftBehind(
  baseline: ReadonlyMap<string, number>,
  seconds: number,
): Promise<Record<string, number>> {
  const until = performance.now() + seconds * 1000;
  for (;;) {
    const more = excess(baseline);
    if (Object.keys(more).length === 0 || performance.now() >= until) return more;
    await new Promise((r) => setTimeout(r, 50));
  }
}
