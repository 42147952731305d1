/**
 * Writes the API server refused (DESIGN habit 18): 403 (RBAC denies the verb, e.g. for a moment while a ClusterRole
 * is re-applied), 401 (the credentials were refused) and 404 on a create or update (the namespace or the resource is
 * not there; a delete answered 404 is done, kit/apply.ts). Each is retried with the reconciler's capped, jittered
 * backoff instead of waiting for the next change or the periodic resync (`asRetried`), counted (`onRefusal`), and
 * tracked here per object until a write of that object succeeds or a full run no longer needs one.
 *
 * What is said: one warn line per (kind, verb, code) when it is first refused, naming the RBAC rule missing, and one
 * info line when no object of it is refused any more; `details()` gives `/readyz` one line per (kind, verb, code)
 * while refused. A refusal never makes the replica unready: RDS still serves, the filters written before stay.
 */
import { ISTIO_GROUP } from '../model/constants.ts';
import type { Logger } from '../util/logger.ts';
import { isRefusedStatus, SinkError, type WriteFailure, type WriteOp, type WriteVerb } from '../kit/write.ts';

/** Plurals of the kinds the reconciler writes (networking.istio.io), for the RBAC rule a refusal names. */
const PLURALS: Readonly<Record<string, string>> = {
  EnvoyFilter: 'envoyfilters',
  VirtualService: 'virtualservices',
};

/**
 * True when the API server refused the write: 401 or 403 (kit/write.ts isRefusedStatus, which every write controller
 * retries), or 404 on a create or update (the reconciler's own: a delete answered 404 is done).
 */
export function isRefusal(op: WriteVerb, error: SinkError): boolean {
  return isRefusedStatus(error.code) || (error.code === 404 && op !== 'delete');
}

/** A run whose failures are all refusals (said once by WriteRefusals, not at every retry). */
export function onlyRefusals(run: { readonly failures: readonly WriteFailure[] }): boolean {
  return run.failures.length > 0 && run.failures.every((f) => isRefusal(f.op, f.error));
}

/** A refused write's failure made transient: the run is retried with backoff. Other failures as they are. */
export function asRetried(f: WriteFailure): WriteFailure {
  if (f.error.transient || !isRefusal(f.op, f.error)) return f;
  const { message, code, reason } = f.error;
  const error = new SinkError(message, {
    transient: true,
    ...(code !== undefined ? { code } : {}),
    ...(reason !== undefined ? { reason } : {}),
    cause: f.error,
  });
  return { ...f, error };
}

/** One refused write, as the tracker holds it. */
export interface WriteRefusal {
  readonly kind: string;
  readonly verb: WriteVerb;
  readonly code: number;
  readonly namespace: string;
  readonly name: string;
}

/** `create envoyfilters.networking.istio.io refused (HTTP 403): grant verb create on group ... resource ...`. */
export function refusalMessage(kind: string, verb: WriteVerb, code: number): string {
  const plural = PLURALS[kind] ?? kind.toLowerCase();
  const what = `${verb} ${plural}.${ISTIO_GROUP} refused (HTTP ${code})`;
  if (code === 403) return `${what}: grant verb ${verb} on group ${ISTIO_GROUP} resource ${plural}`;
  if (code === 401) return `${what}: the API server does not accept the controller's credentials`;
  return `${what}: the namespace or the resource is not there`;
}

const groupKey = (r: Pick<WriteRefusal, 'kind' | 'verb' | 'code'>) => `${r.kind}|${r.verb}|${r.code}`;
const objectKey = (kind: string, namespace: string, name: string) => `${kind}|${namespace}|${name}`;

/** Refusals by (kind, verb, code), in the order given. */
function byGroup(refusals: readonly WriteRefusal[]): Map<string, WriteRefusal[]> {
  const groups = new Map<string, WriteRefusal[]>();
  for (const r of refusals) {
    const key = groupKey(r);
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  return groups;
}

export class WriteRefusals {
  /** Refused objects by kind/namespace/name: their last write was refused. */
  private readonly refused = new Map<string, WriteRefusal>();
  /** Objects written (or attempted) during the current run. */
  private attempted = new Set<string>();
  /** The (kind, verb, code) groups announced at warn and not yet recovered. */
  private readonly announced = new Set<string>();

  constructor(
    private readonly log: Logger,
    private readonly onRefusal?: (r: Pick<WriteRefusal, 'kind' | 'verb' | 'code'>) => void,
  ) {}

  /** A run begins writing. */
  begin(): void {
    this.attempted = new Set();
  }

  /** One write's outcome (kit/apply.ts onWrite). True when it was a refusal (said here, not by the caller). */
  wrote(op: WriteOp, error: SinkError | undefined): boolean {
    const key = objectKey(op.kind, op.namespace, op.name);
    this.attempted.add(key);
    if (!error || !isRefusal(op.op, error) || error.code === undefined) {
      this.refused.delete(key);
      return false;
    }
    const r: WriteRefusal = {
      kind: op.kind,
      verb: op.op,
      code: error.code,
      namespace: op.namespace,
      name: op.name,
    };
    this.refused.set(key, r);
    this.onRefusal?.({ kind: r.kind, verb: r.verb, code: r.code });
    return true;
  }

  /**
   * A run's writes are over. After a full plan (`complete`), an object refused before and not written in this run
   * needs no write any more (no longer desired, or already as desired): its refusal is dropped. Then the groups
   * that start or stop being refused are said.
   */
  end(complete: boolean): void {
    if (complete)
      for (const key of this.refused.keys()) if (!this.attempted.has(key)) this.refused.delete(key);
    const now = byGroup(this.current());
    for (const [key, refused] of now) {
      if (this.announced.has(key)) continue;
      this.announced.add(key);
      const { kind, verb, code } = refused[0]!;
      this.log.warn(`${refusalMessage(kind, verb, code)}; retrying with backoff`, {
        kind,
        verb,
        code,
        objects: refused.length,
        example: `${refused[0]!.namespace}/${refused[0]!.name}`,
      });
    }
    for (const key of [...this.announced]) {
      if (now.has(key)) continue;
      this.announced.delete(key);
      const [kind = '', verb = '', code = ''] = key.split('|');
      this.log.info(
        `${verb} ${PLURALS[kind] ?? kind}.${ISTIO_GROUP} accepted again (was refused with HTTP ${code})`,
        {
          kind,
          verb,
          code: Number(code),
        },
      );
    }
  }

  /** Stopped (no longer leader): nothing is written here, so nothing is refused; said again if refused once more. */
  forget(): void {
    this.refused.clear();
    this.announced.clear();
  }

  /** The refused objects now, ordered by kind, verb, code, namespace and name. */
  current(): WriteRefusal[] {
    const order = (r: WriteRefusal) => `${groupKey(r)}|${r.namespace}|${r.name}`;
    return [...this.refused.values()].sort((a, b) =>
      order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0,
    );
  }

  /** One `/readyz` detail per (kind, verb, code) refused now. */
  details(): string[] {
    return [...byGroup(this.current()).values()].map((rs) => {
      const { kind, verb, code, namespace, name } = rs[0]!;
      const objects = rs.length === 1 ? `${kind} ${namespace}/${name}` : `${rs.length} ${kind}s`;
      return `${refusalMessage(kind, verb, code)} (${objects}); retrying with backoff, routes still served`;
    });
  }
}
