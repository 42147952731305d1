/**
 * What the per-object rules (validate-metarouter.ts, validate-istio.ts) share: the issue collector of one object,
 * the verdicts on hosts and label syntax (bounded memos across objects: verdicts.ts), and the checks of the message
 * types several kinds use. Paths are built only for an issue (most objects have none), by a module-level function
 * of the indexes that locate the field, so no closure is made per object.
 */
import { labelKeyProblem, labelValueProblem } from './addresses.ts';
import { fqdnProblem, isDns1123Label, wildcardDomainProblem } from './dns.ts';
import type { Destination } from './objects.ts';
import { re2Problem } from './re2.ts';
import { issue, warning, type ConfigIssue, type ObjectRef } from './result.ts';
import { Verdicts } from './verdicts.ts';

/** A mesh of 10,000 services names about as many hosts. */
const MAX_HOSTS = 20_000;
const MAX_LABELS = 10_000;
const fqdnVerdicts = new Verdicts((host) => fqdnProblem(host), MAX_HOSTS);
const wildcardVerdicts = new Verdicts(wildcardDomainProblem, MAX_HOSTS);
const labelKeyVerdicts = new Verdicts(labelKeyProblem, MAX_LABELS);
const labelValueVerdicts = new Verdicts(labelValueProblem, MAX_LABELS);

/** The path of a field located by one or two indexes (-1 where one does not apply). */
export type PathOf = (i: number, j: number) => string;

/** Collects the issues of one object. */
export class Checks {
  readonly issues: ConfigIssue[] = [];
  /** The host checked last, how, and its problem: most objects check one host again and again. */
  private lastHost: string | undefined;
  private lastWildcard = false;
  private lastProblem: string | undefined;
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
    const problem = (wildcard ? wildcardVerdicts : fqdnVerdicts).problem(host);
    this.lastHost = host;
    this.lastWildcard = wildcard;
    this.lastProblem = problem;
    return problem;
  }

  re2Problem(regex: string): string | undefined {
    return re2Problem(regex);
  }

  error(path: string, message: string): void {
    this.issues.push(issue(this.ref, path, message));
  }

  warn(path: string, message: string): void {
    this.issues.push(warning(this.ref, path, message));
  }
}

/**
 * A route destination at `pathOf(i, j)`: host valid (an FQDN, or with `wildcard` a wildcard domain other than `*`,
 * as Istio's validateDestination), subset a DNS-1123 label, port 1..65535.
 */
export function checkDestination(
  c: Checks,
  d: Destination,
  wildcard: boolean,
  pathOf: PathOf,
  i: number,
  j: number,
): void {
  const problem =
    wildcard && d.host === '*'
      ? 'invalid destination host "*": a destination names one service'
      : wildcard
        ? c.wildcardProblem(d.host)
        : c.fqdnProblem(d.host);
  if (problem) c.error(`${pathOf(i, j)}.host`, problem);
  if (d.subset !== undefined && !isDns1123Label(d.subset)) {
    c.error(
      `${pathOf(i, j)}.subset`,
      `"${d.subset}" is not a DNS-1123 label (lower-case letters, digits and "-", at most 63): ` +
        'it cannot name a DestinationRule subset',
    );
  }
  if (d.port !== undefined) {
    const n = d.port.number ?? 0;
    if (n < 1 || n > 65535) c.error(`${pathOf(i, j)}.port.number`, `must be between 1 and 65535, got ${n}`);
  }
}

/** True when `s` from `start` to `end` holds a digit 1-9. */
function hasNonZeroDigit(s: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const ch = s.charCodeAt(i);
    if (ch >= 0x31 && ch <= 0x39) return true;
  }
  return false;
}

/**
 * Why a duration in proto3 JSON form (`"60s"`, `"0.100s"`, as the parser converts it) is refused, or undefined:
 * Istio's ValidateDuration takes whole milliseconds only, and with `positive` at least 1ms. One scan, no copies.
 */
export function durationProblem(value: string, positive: boolean): string | undefined {
  const dot = value.indexOf('.');
  const end = value.length - 1; // the `s`
  const wholeEnd = dot < 0 ? end : dot;
  const fractionStart = dot < 0 ? end : dot + 1;
  if (hasNonZeroDigit(value, fractionStart + 3, end)) {
    return `${value}: only durations in whole milliseconds are supported`;
  }
  const zero = wholeEnd === 1 && value.charCodeAt(0) === 0x30 && !hasNonZeroDigit(value, fractionStart, end);
  return positive && zero ? 'must be at least 1ms' : undefined;
}

/** Label keys and values (a subset's labels, a workload selector) at `pathOf(i, -1)`. */
export function checkLabels(
  c: Checks,
  labels: Readonly<Record<string, string>>,
  pathOf: PathOf,
  i: number,
): void {
  for (const key in labels) {
    const keyProblem = labelKeyVerdicts.problem(key);
    if (keyProblem) c.error(`${pathOf(i, -1)}.${key}`, keyProblem);
    const valueProblem = labelValueVerdicts.problem(labels[key] as string);
    if (valueProblem) c.error(`${pathOf(i, -1)}.${key}`, valueProblem);
  }
}
