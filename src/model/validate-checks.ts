/**
 * What the per-object rules (validate-metarouter.ts, validate-istio.ts) share: the issue collector of one object,
 * with the verdicts on hosts and regexes it has reached (an object names the same host in most destinations, and a
 * regex may repeat), and the checks of the message types several kinds use. Paths are functions, called only for
 * an issue: most objects have none.
 */
import { labelKeyProblem, labelValueProblem } from './addresses.ts';
import { fqdnProblem, isDns1123Label, wildcardDomainProblem } from './dns.ts';
import type { Destination } from './objects.ts';
import { re2Problem } from './re2.ts';
import { issue, warning, type ConfigIssue, type ObjectRef } from './result.ts';

function check(host: string, wildcard: boolean): string | undefined {
  return wildcard ? wildcardDomainProblem(host) : fqdnProblem(host);
}

/** Collects the issues of one object. */
export class Checks {
  readonly issues: ConfigIssue[] = [];
  /** The host checked last, how, and its problem: most objects check one host, or one host again and again. */
  private lastHost: string | undefined;
  private lastWildcard = false;
  private lastProblem: string | undefined;
  /** The problems of every host checked, by how: made at the second distinct host. */
  private fqdnProblems: Map<string, string | undefined> | undefined;
  private wildcardProblems: Map<string, string | undefined> | undefined;
  /** The RE2 problem of each regex checked so far. */
  private regexProblems: Map<string, string | undefined> | undefined;
  constructor(readonly ref: ObjectRef) {}

  fqdnProblem(host: string): string | undefined {
    return this.hostProblem(host, false);
  }

  /** Istio's ValidateWildcardDomain: an FQDN, optionally starting with `*.`, or `*`. */
  wildcardProblem(host: string): string | undefined {
    return this.hostProblem(host, true);
  }

  private hostProblem(host: string, wildcard: boolean): string | undefined {
    if (host === this.lastHost && wildcard === this.lastWildcard) return this.lastProblem;
    let problem: string | undefined;
    if (this.lastHost === undefined) problem = check(host, wildcard);
    else {
      this.fqdnProblems ??= new Map();
      this.wildcardProblems ??= new Map();
      (this.lastWildcard ? this.wildcardProblems : this.fqdnProblems).set(this.lastHost, this.lastProblem);
      const known = wildcard ? this.wildcardProblems : this.fqdnProblems;
      problem = known.has(host) ? known.get(host) : check(host, wildcard);
    }
    this.lastHost = host;
    this.lastWildcard = wildcard;
    this.lastProblem = problem;
    return problem;
  }

  re2Problem(regex: string): string | undefined {
    this.regexProblems ??= new Map();
    if (this.regexProblems.has(regex)) return this.regexProblems.get(regex);
    const problem = re2Problem(regex);
    this.regexProblems.set(regex, problem);
    return problem;
  }

  error(path: string, message: string): void {
    this.issues.push(issue(this.ref, path, message));
  }

  warn(path: string, message: string): void {
    this.issues.push(warning(this.ref, path, message));
  }
}

/**
 * A route destination at `path()`: host valid (an FQDN, or with `wildcard` a wildcard domain other than `*`, as
 * Istio's validateDestination), subset a DNS-1123 label, port 1..65535.
 */
export function checkDestination(c: Checks, d: Destination, path: () => string, wildcard: boolean): void {
  const problem =
    wildcard && d.host === '*'
      ? 'invalid destination host "*": a destination names one service'
      : wildcard
        ? c.wildcardProblem(d.host)
        : c.fqdnProblem(d.host);
  if (problem) c.error(`${path()}.host`, problem);
  if (d.subset !== undefined && !isDns1123Label(d.subset)) {
    c.error(
      `${path()}.subset`,
      `"${d.subset}" is not a DNS-1123 label (lower-case letters, digits and "-", at most 63): ` +
        'it cannot name a DestinationRule subset',
    );
  }
  if (d.port !== undefined) {
    const n = d.port.number ?? 0;
    if (n < 1 || n > 65535) c.error(`${path()}.port.number`, `must be between 1 and 65535, got ${n}`);
  }
}

/**
 * A duration in proto3 JSON form (`"60s"`, `"0.100s"`, as the parser converts it) at `path`: Istio's
 * ValidateDuration takes whole milliseconds only, and with `positive` at least 1ms.
 */
export function checkDuration(c: Checks, value: string, path: string, positive: boolean): void {
  const dot = value.indexOf('.');
  const whole = dot < 0 ? value.slice(0, -1) : value.slice(0, dot);
  const fraction = dot < 0 ? '' : value.slice(dot + 1, -1);
  if (/[1-9]/.test(fraction.slice(3))) {
    c.error(path, `${value}: only durations in whole milliseconds are supported`);
  } else if (positive && whole === '0' && !/[1-9]/.test(fraction)) {
    c.error(path, 'must be at least 1ms');
  }
}

/** Label keys and values (a subset's labels, a workload selector) at `path()`. */
export function checkLabels(c: Checks, labels: Readonly<Record<string, string>>, path: () => string): void {
  for (const key in labels) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) c.error(`${path()}.${key}`, keyProblem);
    const valueProblem = labelValueProblem(labels[key] as string);
    if (valueProblem) c.error(`${path()}.${key}`, valueProblem);
  }
}
