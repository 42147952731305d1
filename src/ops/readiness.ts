/**
 * Readiness checks for `/readyz`, e.g. "every config source synced" or "RDS server listening". A check answers a
 * boolean or `{ ready, reason }`, synchronously or as a promise; throwing, rejecting or not answering within the
 * timeout counts as "not ready" with the error as reason.
 */
export interface ReadinessStatus {
  readonly ready: boolean;
  /** Why not ready (shown in the `/readyz` body). */
  readonly reason?: string;
  /** What a ready or unready check wants operators to know (e.g. kinds not installed), one line each. */
  readonly details?: readonly string[];
}

export type ReadinessCheck = () => boolean | ReadinessStatus | Promise<boolean | ReadinessStatus>;

export interface CheckResult {
  readonly name: string;
  readonly ready: boolean;
  readonly reason?: string;
  readonly details?: readonly string[];
}

/** Runs every check concurrently; results sorted by name. Never rejects. */
export async function runChecks(
  checks: ReadonlyMap<string, ReadinessCheck>,
  timeoutMs: number,
): Promise<CheckResult[]> {
  const names = [...checks.keys()].sort();
  return Promise.all(names.map((name) => runOne(name, checks.get(name), timeoutMs)));
}

async function runOne(
  name: string,
  check: ReadinessCheck | undefined,
  timeoutMs: number,
): Promise<CheckResult> {
  if (!check) return { name, ready: false, reason: 'check removed' };
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<ReadinessStatus>((resolve) => {
      timer = setTimeout(
        () => resolve({ ready: false, reason: `no answer within ${timeoutMs} ms` }),
        timeoutMs,
      );
      timer.unref();
    });
    const answer = await Promise.race([Promise.resolve().then(check), timeout]);
    const status: ReadinessStatus = typeof answer === 'boolean' ? { ready: answer } : answer;
    const ready = status.ready === true;
    const reason = status.reason ?? (ready ? undefined : 'not ready');
    const details = status.details && status.details.length > 0 ? { details: status.details } : {};
    return reason === undefined ? { name, ready, ...details } : { name, ready, reason, ...details };
  } catch (err) {
    return { name, ready: false, reason: err instanceof Error ? err.message : String(err) };
  } finally {
    if (timer) clearTimeout(timer);
  }
}
