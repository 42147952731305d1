/**
 * Bad user config is data, not an exception. A ConfigIssue names the object (`Kind namespace/name`) and the
 * field path inside it (`spec.ports[1].name`), so one bad object can be reported and skipped while every
 * other object is still served.
 */
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

export interface ConfigIssue {
  /** Absent means `error`. */
  readonly severity?: Severity;
  readonly ref: ObjectRef;
  /** Dotted field path inside the object, e.g. `spec.ports[1].name`; empty when the whole object is meant. */
  readonly path: string;
  readonly message: string;
}

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

export function severityOf(i: ConfigIssue): Severity {
  return i.severity ?? 'error';
}

/** True when any issue is an error (not a warning). */
export function hasErrors(issues: readonly ConfigIssue[]): boolean {
  return issues.some((i) => severityOf(i) === 'error');
}

export function refString(ref: ObjectRef): string {
  return ref.namespace ? `${ref.kind} ${ref.namespace}/${ref.name}` : `${ref.kind} ${ref.name}`;
}

/** `ServiceEntry shop/three-colons: metadata.annotations.workloadSelector: more than one ':'` */
export function formatIssue(i: ConfigIssue): string {
  return i.path ? `${refString(i.ref)}: ${i.path}: ${i.message}` : `${refString(i.ref)}: ${i.message}`;
}

/** `error: <formatIssue>` or `warning: <formatIssue>`: one stderr line of `aeraki render`, without the newline. */
export function issueLine(i: ConfigIssue): string {
  return `${severityOf(i)}: ${formatIssue(i)}`;
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
