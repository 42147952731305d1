/**
 * Bad user config is data, not an exception. A ConfigIssue names the object (`Kind namespace/name`) and the
 * field path inside it (`spec.ports[1].name`), so one bad object can be reported and skipped while every
 * other object is still served.
 */
import { escapeControl } from '../util/control-chars.ts';

export interface ObjectRef {
  readonly kind: string;
  /** Empty for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
}

/** The ref of a config object: its kind, namespace and name. */
export function refOf(o: {
  readonly kind: string;
  readonly metadata: { readonly namespace: string; readonly name: string };
}): ObjectRef {
  return { kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name };
}

/**
 * `error`: the object (or the part named by `path`) is wrong and is not honoured; `aeraki render` exits 1.
 * `warning`: the output is what was asked for, but probably not what the user wants (an extension the sidecars
 * lack, a port nothing handles); reported, never fails a source, and `aeraki render` still exits 0.
 */
export type Severity = 'error' | 'warning';

/**
 * One issue has two severities (DESIGN habit 12): `severity`, the controller's (`serve`, `render`: an error
 * rejects the object, last known good applies), and `admission`, the one `aeraki validate` and the webhook give it
 * ("would admission accept this?"). They differ only for a rule of admission hygiene: the object breaks a rule
 * of Aeraki's (or Istio's) webhook, yet Aeraki's controller renders it and the proxy accepts the result, so the
 * controller renders it as Aeraki does, with a warning (`hygiene`), while admission refuses it.
 */
export interface ConfigIssue {
  /** The controller's severity. Absent means `error`. */
  readonly severity?: Severity;
  /** The severity admission gives the issue. Absent means the same as `severity`. */
  readonly admission?: Severity;
  readonly ref: ObjectRef;
  /** Dotted field path inside the object, e.g. `spec.ports[1].name`; empty when the whole object is meant. */
  readonly path: string;
  /** The controller's words: the rule broken and, for a hygiene issue, what the controller makes of it. */
  readonly message: string;
  /**
   * A hygiene issue's words for admission, which refuses the object: the rule without the controller's consequence
   * (`must be at most 100, got 150` where the controller says `...: every request is mirrored`). Absent: `message`.
   */
  readonly admissionMessage?: string;
  /**
   * A stable identity of the check that made the issue, set where it is made, for consumers that tell issues
   * apart (`aeraki analyze` gives each its code): the message may be reworded, the rule never. Absent for most
   * issues; never printed.
   */
  readonly rule?: IssueRule;
}

/** The issues some consumer recognises (ConfigIssue.rule). */
export type IssueRule =
  | 'port-unknown-segment'
  | 'codec-missing'
  | 'no-addresses'
  | 'metarouter-host-not-found'
  | 'metarouter-host-claimed';

/**
 * `ok: true` may still carry issues: they concern parts that were dropped (for example a VirtualService that
 * could not be honoured) while the value itself is usable. `ok: false` means there is no value.
 */
export type Result<T> =
  | { readonly ok: true; readonly value: T; readonly issues: readonly ConfigIssue[] }
  | { readonly ok: false; readonly issues: readonly ConfigIssue[] };

/** The issues of a result that has none: one array shared by all such results, so frozen. */
const NO_ISSUES: readonly ConfigIssue[] = Object.freeze([]);

export function ok<T>(value: T, issues: readonly ConfigIssue[] = NO_ISSUES): Result<T> {
  return { ok: true, value, issues };
}

export function fail<T = never>(issues: readonly ConfigIssue[]): Result<T> {
  return { ok: false, issues };
}

export function issue(ref: ObjectRef, path: string, message: string): ConfigIssue {
  return { ref, path, message };
}

/** A warning: reported, but it neither fails its source nor the `render` exit code. */
export function warning(ref: ObjectRef, path: string, message: string): ConfigIssue {
  return { severity: 'warning', ref, path, message };
}

/**
 * A rule of admission hygiene broken: a warning where the object is rendered (`serve`, `render`: as Aeraki's
 * controller renders it), an error for `aeraki validate` and the webhook.
 */
export function hygiene(
  ref: ObjectRef,
  path: string,
  message: string,
  admissionMessage?: string,
): ConfigIssue {
  return {
    severity: 'warning',
    admission: 'error',
    ref,
    path,
    message,
    ...(admissionMessage !== undefined && admissionMessage !== message ? { admissionMessage } : {}),
  };
}

/** The controller's severity (`serve`, `render`). */
export function severityOf(i: ConfigIssue): Severity {
  return i.severity ?? 'error';
}

/** The severity admission (`aeraki validate`, the webhook) gives the issue. */
export function admissionSeverityOf(i: ConfigIssue): Severity {
  return i.admission ?? severityOf(i);
}

/** True when admission refuses what the controller renders with a warning (a hygiene issue). */
export function admissionOnly(i: ConfigIssue): boolean {
  return admissionSeverityOf(i) === 'error' && severityOf(i) === 'warning';
}

/**
 * The issues as admission sees them: each with the severity admission gives it (and no second one) and its words
 * for admission (no controller consequence in a refusal), so that `aeraki validate` and the webhook print and count
 * them as they print and count any other issue.
 */
export function asAdmission(issues: readonly ConfigIssue[]): ConfigIssue[] {
  return issues.map((i) => {
    if (i.admission === undefined) return i;
    const { admission, admissionMessage, ...rest } = i;
    return {
      ...rest,
      severity: admission,
      ...(admissionMessage !== undefined ? { message: admissionMessage } : {}),
    };
  });
}

/** True when any issue is an error (not a warning). */
export function hasErrors(issues: readonly ConfigIssue[]): boolean {
  return issues.some((i) => severityOf(i) === 'error');
}

export function refString(ref: ObjectRef): string {
  const name = escapeControl(ref.name);
  return ref.namespace ? `${ref.kind} ${escapeControl(ref.namespace)}/${name}` : `${ref.kind} ${name}`;
}

/** `ServiceEntry shop/three-colons: metadata.annotations.workloadSelector: more than one ':'` */
export function formatIssue(i: ConfigIssue): string {
  return i.path ? `${refString(i.ref)}: ${i.path}: ${i.message}` : `${refString(i.ref)}: ${i.message}`;
}

/**
 * `error: <formatIssue>` or `warning: <formatIssue>`: one stderr line of `aeraki render`, without the newline (and
 * none within: control characters escaped).
 */
export function issueLine(i: ConfigIssue): string {
  return `${severityOf(i)}: ${escapeControl(formatIssue(i))}`;
}

/** The issues without repeats (equal severity and formatted text), first occurrences in their order. */
export function dedupeIssues(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = issueLine(i);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
