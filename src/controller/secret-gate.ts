/**
 * The Secrets objects name (model/secret-refs.ts, KindSpec.secretRefs), for a source whose input holds the Secrets
 * themselves (the directory source): what the Kubernetes source does with its GETs by name (kube/secrets.ts), done
 * over one complete read of the input, with the same issues.
 *
 * An object naming a Secret that is not in the input (`Secret ns/s not found`), that the parser rejected (a value
 * not valid base64), or that cannot serve it (SecretRef.problems: a key it needs missing or empty) is moved from the
 * valid objects to the rejected ones, with the hosts its kind says it configures (KindSpec.hostsOf). The store then
 * keeps its last valid version in effect, or, with none, holds those hosts: never a filter without the auth it asks
 * for. Its last valid version stays with the Secret it was read with: a Secret that such an object's stored version
 * names, and no accepted object names, keeps its stored version (the store's current one) while it is missing or
 * cannot serve; a Secret an accepted object names is the input's (as over the API: the other object's generation
 * then says what it lacks).
 */
import type { ConfigObject, Secret } from '../model/objects.ts';
import type { ParsedObjects, RejectedObject } from '../model/parse/objects.ts';
import { issue, refOf, type ConfigIssue } from '../model/result.ts';
import {
  secretAbsentIssue,
  secretProblemIssues,
  type SecretRef,
  type SecretRefsOf,
} from '../model/secret-refs.ts';

export interface SecretGateOptions {
  /** The Secrets an object names (model/kinds.ts secretRefReader over the plugins' kinds). */
  readonly refsOf: SecretRefsOf;
  /** The hosts an object configures (KindSpec.hostsOf), held while it is rejected with no valid version. */
  readonly hostsOf: (o: ConfigObject) => readonly string[];
}

/** What the store holds now: the last valid version of an object, and the Secret it was read with. */
export type StoredLookup = (kind: string, namespace: string, name: string) => ConfigObject | undefined;

const secretKey = (namespace: string, name: string) => `${namespace}/${name}`;

/**
 * `parsed` with every object whose Secrets cannot serve it rejected (issues added to `issues` and the rejection),
 * and the stored version of each Secret the last valid version of such an object still needs. Pure: `stored` is
 * read, never written.
 */
export function gateSecretRefs(
  parsed: ParsedObjects,
  o: SecretGateOptions,
  stored: StoredLookup,
): ParsedObjects {
  const secrets = new Map<string, Secret>();
  for (const obj of parsed.objects) {
    if (obj.kind === 'Secret') secrets.set(secretKey(obj.metadata.namespace, obj.metadata.name), obj);
  }
  const invalidSecrets = new Map<string, RejectedObject>();
  for (const r of parsed.rejected) {
    if (r.ref.kind === 'Secret') invalidSecrets.set(secretKey(r.ref.namespace, r.ref.name), r);
  }
  const objects: ConfigObject[] = [];
  const rejected: RejectedObject[] = [];
  const named = new Set<string>();
  for (const obj of parsed.objects) {
    const refs = o.refsOf(obj);
    const issues = refs.flatMap((ref) => refIssues(obj, ref, secrets, invalidSecrets));
    if (issues.length === 0) {
      objects.push(obj);
      for (const ref of refs) named.add(secretKey(obj.metadata.namespace, ref.name));
    } else rejected.push({ ref: refOf(obj), issues, hosts: o.hostsOf(obj) });
  }
  if (rejected.length === 0) return parsed;
  const kept = keptSecrets(rejected, named, secrets, invalidSecrets, o, stored);
  const out = [...objects.filter((x) => !isReplaced(x, kept)), ...kept.values()];
  return {
    objects: out,
    rejected: [...parsed.rejected, ...rejected],
    issues: [...parsed.issues, ...rejected.flatMap((r) => r.issues)],
    mesh: parsed.mesh,
  };
}

/** The issues of `obj` from the Secret `ref` names (none when it serves). */
function refIssues(
  obj: ConfigObject,
  ref: SecretRef,
  secrets: ReadonlyMap<string, Secret>,
  invalidSecrets: ReadonlyMap<string, RejectedObject>,
): ConfigIssue[] {
  const key = secretKey(obj.metadata.namespace, ref.name);
  const secret = secrets.get(key);
  if (secret) return secretProblemIssues(obj, ref, secret.spec.data);
  const invalid = invalidSecrets.get(key);
  if (!invalid) return [secretAbsentIssue(obj, ref, 'not found')];
  const why = invalid.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  return [issue(refOf(obj), ref.path, `Secret ${key} cannot be used: ${why}`)];
}

/**
 * The stored version of each Secret a rejected object's stored version names, when no accepted object names it
 * and the input's differs (by `<namespace>/<name>`).
 */
function keptSecrets(
  rejected: readonly RejectedObject[],
  named: ReadonlySet<string>,
  secrets: ReadonlyMap<string, Secret>,
  invalidSecrets: ReadonlyMap<string, RejectedObject>,
  o: SecretGateOptions,
  stored: StoredLookup,
): Map<string, Secret> {
  const kept = new Map<string, Secret>();
  for (const r of rejected) {
    const last = stored(r.ref.kind, r.ref.namespace, r.ref.name);
    if (!last) continue;
    for (const ref of o.refsOf(last)) {
      const key = secretKey(r.ref.namespace, ref.name);
      // A Secret the parser rejected keeps its stored version in the store already.
      if (named.has(key) || kept.has(key) || invalidSecrets.has(key)) continue;
      const previous = stored('Secret', r.ref.namespace, ref.name);
      if (previous?.kind === 'Secret' && previous !== secrets.get(key)) kept.set(key, previous);
    }
  }
  return kept;
}

function isReplaced(obj: ConfigObject, kept: ReadonlyMap<string, Secret>): boolean {
  return obj.kind === 'Secret' && kept.has(secretKey(obj.metadata.namespace, obj.metadata.name));
}
