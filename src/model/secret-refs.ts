/**
 * Secrets that config objects name (a generic facility plugins use: a kind declares the Secrets its objects name,
 * KindSpec.secretRefs, model/kinds.ts secretRefReader), each a Secret of the object's own namespace, with the keys of it that are used. The
 * Kubernetes source reads exactly these Secrets, by name, and keeps only these keys (least privilege: nothing else
 * of a Secret is held).
 */
import type { ConfigObject } from './objects.ts';
import { issue, refOf, type ConfigIssue } from './result.ts';

/** A Secret named by an object. */
export interface SecretRef {
  /** The Secret's name, in the object's namespace. */
  readonly name: string;
  /** The field naming it, for issues (`spec.settings.auth.secret.name`). */
  readonly path: string;
  /** The keys of `data` (the Secret's decoded data) the object reads, in the order they are kept. */
  usedKeys(data: Readonly<Record<string, string>>): readonly string[];
  /**
   * Why `data` cannot give the object what it asks for: a key it needs that is missing or empty, or whose value
   * is in `undecodable` (present in the Secret but not valid base64; `data` has it as ''). Each problem is the
   * field it is about and the text after `Secret <ns>/<name> ` (`has no key "password"`); none when usable. An
   * object with a problem is an error, as when its Secret is missing: never rendered without what it asks for.
   */
  problems?(
    data: Readonly<Record<string, string>>,
    undecodable: ReadonlySet<string>,
  ): readonly SecretProblem[];
}

/** One reason a Secret's data cannot serve a reference (SecretRef.problems). */
export interface SecretProblem {
  /** The field of the object the problem is about (`spec.settings.auth.secret.passwordField`). */
  readonly path: string;
  /** What is wrong, after `Secret <ns>/<name> `: never a value. */
  readonly message: string;
}

/** The Secrets an object names, by the spec of its kind (none for kinds that name none). */
export type SecretRefsOf = (o: ConfigObject) => readonly SecretRef[];

/** The part of `data` that `refs` read (the keys present of those their usedKeys name). */
export function usedSecretData(
  refs: readonly SecretRef[],
  data: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of refs) {
    for (const key of r.usedKeys(data)) {
      const value = data[key];
      if (Object.hasOwn(data, key) && value !== undefined) out[key] = value;
    }
  }
  return out;
}

/** Why a Secret an object names cannot be had at all: absent from the input, or refused to the controller. */
export type SecretAbsence = 'not found' | 'forbidden';

/** The issue of `obj` whose Secret (`ref`) is absent: `<field naming it>: Secret ns/s not found`; never a value. */
export function secretAbsentIssue(obj: ConfigObject, ref: SecretRef, reason: SecretAbsence): ConfigIssue {
  const where = `${obj.metadata.namespace}/${ref.name}`;
  const message =
    reason === 'not found'
      ? `Secret ${where} not found`
      : `Secret ${where} forbidden: the controller may not get it (grant verb get on group "" (core) resource secrets)`;
  return issue(refOf(obj), ref.path, message);
}

/**
 * The issues of `obj` from a Secret that is there but cannot serve `ref` (SecretRef.problems over `data`, the keys
 * in `undecodable` not valid base64), each `Secret ns/s has no key "password"`; none when it serves. Never a value.
 */
export function secretProblemIssues(
  obj: ConfigObject,
  ref: SecretRef,
  data: Readonly<Record<string, string>>,
  undecodable: readonly string[] = [],
): ConfigIssue[] {
  if (!ref.problems) return [];
  const bad = new Set(undecodable);
  const all: Record<string, string> = { ...data };
  for (const k of bad) if (!Object.hasOwn(all, k)) all[k] = '';
  const where = `${obj.metadata.namespace}/${ref.name}`;
  return ref.problems(all, bad).map((p) => issue(refOf(obj), p.path, `Secret ${where} ${p.message}`));
}
