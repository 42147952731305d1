/**
 * What is never shown (the `/debug/*` documents): the credential fields the plugins declare, of their kinds'
 * objects (KindSpec.secretFields: dotted paths) and of their generated output (Generator.secretKeys: field names at
 * any depth), besides the values of every Secret. A redacted value is `<redacted>`: nothing of it (length, hash)
 * is kept. An issue at, under or just above a secret field (its message may quote the value: `must be a string,
 * got number 1234`) keeps its path and loses its text.
 */
import { isPlainObject } from '../util/json.ts';
import type { ConfigIssue } from './result.ts';

export const REDACTED = '<redacted>';

/** Secret values (model/objects.ts Secret: `spec.data`, decoded) are never shown, whatever the plugins say. */
const CORE_SECRET_FIELDS: Readonly<Record<string, readonly string[]>> = { Secret: ['spec.data.*'] };

/** The declarations, read once (secretPolicy). */
export interface SecretPolicy {
  /** Kind → its secret fields, each as path segments. */
  readonly fields: ReadonlyMap<string, readonly (readonly string[])[]>;
  /** Normalised field names (normalKey) redacted at any depth. */
  readonly keys: ReadonlySet<string>;
}

/** `authPassword`, `auth_password` and `AuthPassword` are one field (proto3 JSON and the proto's names). */
function normalKey(key: string): string {
  return key.replace(/_/g, '').toLowerCase();
}

/** The policy of the plugins' kinds and generators (each declaration optional). */
export function secretPolicy(
  kinds: readonly { readonly kind: string; readonly secretFields?: readonly string[] }[],
  generators: readonly { readonly secretKeys?: readonly string[] }[] = [],
): SecretPolicy {
  const fields = new Map<string, string[][]>();
  const add = (kind: string, paths: readonly string[]) => {
    const list = fields.get(kind) ?? [];
    list.push(...paths.map((p) => p.split('.')));
    fields.set(kind, list);
  };
  for (const [kind, paths] of Object.entries(CORE_SECRET_FIELDS)) add(kind, paths);
  for (const k of kinds) if (k.secretFields) add(k.kind, k.secretFields);
  const keys = new Set<string>();
  for (const g of generators) for (const k of g.secretKeys ?? []) keys.add(normalKey(k));
  return { fields, keys };
}

/**
 * A copy of `value` with every secret field's value `<redacted>`: the declared fields of each object with a `kind`
 * (at any depth), and every field named by a declared key. `value` is not changed.
 */
export function redactSecrets(value: unknown, policy: SecretPolicy): unknown {
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, policy));
  if (!isPlainObject(value)) return value;
  let o: Record<string, unknown> = value;
  const kind = o['kind'];
  const paths = typeof kind === 'string' ? policy.fields.get(kind) : undefined;
  for (const path of paths ?? []) o = redactAt(o, path) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(o).map(([k, v]) => [
      k,
      policy.keys.has(normalKey(k)) ? REDACTED : redactSecrets(v, policy),
    ]),
  );
}

/** `value` with the field at `path` redacted (a list on the way: each item; `*`: every key). */
function redactAt(value: unknown, path: readonly string[]): unknown {
  if (path.length === 0) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactAt(v, path));
  if (!isPlainObject(value)) return value;
  const [head = '', ...rest] = path;
  if (head === '*') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactAt(v, rest)]));
  }
  if (!Object.hasOwn(value, head)) return value;
  return { ...value, [head]: redactAt(value[head], rest) };
}

/**
 * `issue` without its text when its path is at or under a secret field of its object's kind, or one or two levels
 * above it (`plain: "hunter2"` is quoted at `...auth.plain`).
 */
export function redactIssue(issue: ConfigIssue, policy: SecretPolicy): ConfigIssue {
  const paths = policy.fields.get(issue.ref.kind);
  if (!paths || !issue.path) return issue;
  const at = issue.path.replace(/\[[^\]]*\]/g, '').split('.');
  const same = (a: string | undefined, b: string | undefined) => a === b || a === '*' || b === '*';
  const touches = (field: readonly string[]) =>
    at.length >= field.length - 2 && field.every((seg, i) => i >= at.length || same(seg, at[i]));
  return paths.some(touches) ? { ...issue, message: `${REDACTED} (at a secret field)` } : issue;
}
