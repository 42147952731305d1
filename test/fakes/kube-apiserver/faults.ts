// Fault injection: answer given requests with a status code, delay them, or drop their connection.
import type { RequestRecord, Verb } from './types.ts';

/** Which requests a fault applies to; every given field must match (none given: every request). */
export interface FaultMatch {
  verb?: Verb | Verb[];
  group?: string;
  /** The plural, e.g. 'envoyfilters'. */
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  method?: string;
  /** Substring of, or pattern for, the URL path. */
  path?: string | RegExp;
  /** The bearer token (a replica's identity). */
  token?: string;
}

export interface FaultSpec extends FaultMatch {
  /** Answer with this HTTP status and a matching Status body (reason/message override the defaults). */
  status?: number;
  reason?: string;
  message?: string;
  retryAfterSeconds?: number;
  /** Answer 403 as RBAC's authorizer does (status.ts rbacForbidden: user, verb, resource, scope). */
  forbid?: boolean;
  /** Destroy the connection without an answer (the client sees a reset / socket hang up). */
  drop?: boolean;
  /** Wait this long before handling (alone: pure latency; with status/drop: before failing). */
  delayMs?: number;
  /** How many matching requests it affects (default 1; Infinity until removed). */
  times?: number;
}

export interface Fault {
  readonly spec: Readonly<FaultSpec>;
  /** Requests it has affected so far. */
  readonly hits: number;
  readonly remaining: number;
  remove(): void;
}

export interface FaultDecision {
  delayMs: number;
  /** The fault that decides the answer (status or drop), if any. */
  fault?: FaultSpec;
}

class FaultImpl implements Fault {
  hits = 0;
  remaining: number;
  constructor(
    readonly spec: FaultSpec,
    private readonly owner: Faults,
  ) {
    this.remaining = spec.times ?? 1;
  }
  remove(): void {
    this.owner.removeFault(this);
  }
}

function matches(m: FaultMatch, r: RequestRecord): boolean {
  const verbs = m.verb === undefined ? undefined : Array.isArray(m.verb) ? m.verb : [m.verb];
  if (verbs && (r.verb === undefined || !verbs.includes(r.verb))) return false;
  if (m.group !== undefined && m.group !== r.group) return false;
  if (m.resource !== undefined && m.resource !== r.resource) return false;
  if (m.subresource !== undefined && m.subresource !== r.subresource) return false;
  if (m.namespace !== undefined && m.namespace !== r.namespace) return false;
  if (m.name !== undefined && m.name !== r.name) return false;
  if (m.method !== undefined && m.method.toUpperCase() !== r.method) return false;
  if (m.token !== undefined && m.token !== r.token) return false;
  if (typeof m.path === 'string' && !r.path.includes(m.path)) return false;
  if (m.path instanceof RegExp && !m.path.test(r.path)) return false;
  return true;
}

/** Contract: faults are consulted in the order they were added; each affected request uses up one `times`. */
export class Faults {
  private readonly list: FaultImpl[] = [];

  inject(spec: FaultSpec): Fault {
    const f = new FaultImpl({ ...spec }, this);
    this.list.push(f);
    return f;
  }

  /** Adds `ms` of latency to every matching request until removed. */
  latency(ms: number, match: FaultMatch = {}): Fault {
    return this.inject({ ...match, delayMs: ms, times: Infinity });
  }

  removeFault(f: Fault): void {
    const i = this.list.indexOf(f as FaultImpl);
    if (i >= 0) this.list.splice(i, 1);
  }

  clear(): void {
    this.list.length = 0;
  }

  get active(): Fault[] {
    return [...this.list];
  }

  /** Decides what happens to a request (and uses up the faults that apply). */
  decide(r: RequestRecord): FaultDecision {
    let delayMs = 0;
    let fault: FaultSpec | undefined;
    for (const f of [...this.list]) {
      if (f.remaining <= 0 || !matches(f.spec, r)) continue;
      const decisive = f.spec.status !== undefined || f.spec.drop === true || f.spec.forbid === true;
      if (decisive && fault) continue;
      f.hits++;
      f.remaining--;
      if (f.remaining <= 0) this.removeFault(f);
      delayMs += f.spec.delayMs ?? 0;
      if (decisive) fault = f.spec;
    }
    return { delayMs, fault };
  }
}
