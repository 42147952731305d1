/**
 * What the per-object rules (validate/metarouter.ts, validate/istio.ts) share: the issue collector of one object,
 * the verdicts on hosts and label syntax (bounded memos across objects: verdicts.ts), and the checks of the message
 * types several kinds use. Paths are built only for an issue (most objects have none), by a module-level function
 * of the indexes that locate the field, so no closure is made per object.
 */
import { labelKeyProblem, labelValueProblem } from './addresses.ts';
import { fqdnProblem, isDns1123Label, wildcardDomainProblem } from '../dns.ts';
import type { Destination } from '../objects.ts';
import { hygiene, issue, warning, type ConfigIssue, type ObjectRef } from '../result.ts';
import { LastVerdict, Verdicts } from './verdicts.ts';

/**
 * Label keys come back in every subset and selector, and a key of a parsed object is an interned string, so its
 * verdict is found without reading the key again. Hosts and label values are not memoized: each object holds its
 * own copy of the string, and one scan of it costs less than hashing it and comparing it with the memo's copy.
 */
const labelKeyVerdicts = new Verdicts(labelKeyProblem, 10_000);
const fqdnVerdict = new LastVerdict((host) => fqdnProblem(host));
const wildcardVerdict = new LastVerdict(wildcardDomainProblem);

/** fqdnProblem (dns.ts) of `host`, kept for the next call with the same host. */
export function hostProblem(host: string): string | undefined {
  return fqdnVerdict.problem(host);
}

/** wildcardDomainProblem (dns.ts) of `host`, kept for the next call with the same host. */
export function wildcardHostProblem(host: string): string | undefined {
  return wildcardVerdict.problem(host);
}

/** The path of a field located by one or two indexes (-1 where one does not apply). */
export type PathOf = (i: number, j: number) => string;

/**
 * The issues of one object as the rules find them, in field order. A plain record written through `error` and
 * `warn`: the rules of one object allocate nothing else unless there is an issue.
 */
export interface Checks {
  readonly ref: ObjectRef;
  readonly issues: ConfigIssue[];
}

export function checksOf(ref: ObjectRef): Checks {
  return { ref, issues: [] };
}

export function error(c: Checks, path: string, message: string): void {
  c.issues.push(issue(c.ref, path, message));
}

export function warn(c: Checks, path: string, message: string): void {
  c.issues.push(warning(c.ref, path, message));
}

/**
 * A rule of admission hygiene (result.ts hygiene): admission refuses, the controller renders with a warning.
 * `consequence`, what the controller makes of it, follows the rule (`rule: consequence`) in the controller's words
 * only: admission refuses the object, so nothing follows.
 */
export function refuse(c: Checks, path: string, message: string, consequence?: string): void {
  if (consequence === undefined) c.issues.push(hygiene(c.ref, path, message));
  else c.issues.push(hygiene(c.ref, path, `${message}: ${consequence}`, message));
}

/** refuse with the controller's words and admission's apart (where the consequence is not a mere suffix). */
export function refuseAs(c: Checks, path: string, controller: string, admission: string): void {
  c.issues.push(hygiene(c.ref, path, controller, admission));
}

/**
 * A route destination at `pathOf(i, j)`: host valid (an FQDN, or with `wildcard` a wildcard domain other than `*`,
 * as Istio's validateDestination), subset a DNS-1123 label, port 1..65535.
 *
 * The subset and port rules are admission only: the cluster `outbound|<port>|<subset>|<host>` is named as written
 * (istiod names the cluster of a DestinationRule subset the same way), and port 0 means the service's port. The
 * host of a MetaRouter destination (`wildcard` false) names the cluster, so a bad one is an error; a VirtualService
 * destination (`wildcard` true) is read for its subset and weight only (the Dubbo and Thrift routes go to the
 * service's own host, as in Aeraki), so its host rule is admission only too.
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
        ? wildcardHostProblem(d.host)
        : hostProblem(d.host);
  if (problem && wildcard) refuse(c, `${pathOf(i, j)}.host`, problem);
  else if (problem) error(c, `${pathOf(i, j)}.host`, problem);
  if (d.subset !== undefined && !isDns1123Label(d.subset)) {
    refuse(
      c,
      `${pathOf(i, j)}.subset`,
      `"${d.subset}" is not a DNS-1123 label (lower-case letters, digits and "-", at most 63): ` +
        'Istio refuses such a DestinationRule subset name',
    );
  }
  if (d.port !== undefined) {
    const n = d.port.number ?? 0;
    if (n < 1 || n > 65535) {
      refuse(
        c,
        `${pathOf(i, j)}.port.number`,
        `must be between 1 and 65535, got ${n}`,
        "the service's port is used",
      );
    }
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

/**
 * Label keys and values (a subset's labels, a workload selector) at `pathOf(i, -1)`; with `admissionOnly` the
 * problems are admission only (labels no output of this controller carries).
 */
export function checkLabels(
  c: Checks,
  labels: Readonly<Record<string, string>>,
  pathOf: PathOf,
  i: number,
  admissionOnly = false,
): void {
  const report = admissionOnly ? refuse : error;
  for (const key in labels) {
    const keyProblem = labelKeyVerdicts.problem(key);
    if (keyProblem) report(c, `${pathOf(i, -1)}.${key}`, keyProblem);
    const valueProblem = labelValueProblem(labels[key] as string);
    if (valueProblem) report(c, `${pathOf(i, -1)}.${key}`, valueProblem);
  }
}
