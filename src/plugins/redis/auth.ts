/**
 * Redis auth from a RedisService or RedisDestination (Aeraki internal/plugin/redis/outbound.go:120-172, with D12):
 * `plain` as written; `secret` from the Secret of that name in the object's namespace, password key
 * `passwordField`, else `password`, else `token` when there is no `password` key; username key `usernameField`,
 * else `username`; values trimmed. A missing Secret is an input error of the owner; so is a Secret without the
 * password key (or with it empty), without a `usernameField` it names, or with a used value that is not valid
 * base64 (secretProblems). Aeraki writes the filter without auth then (an absent key reads as '': aeraki-mesh/aeraki
 * internal/plugin/redis/outbound.go:135-156 at 56e4de0); here the object is an error, and no filter without the
 * auth it asks for is written.
 */
import type { RedisAuth, SecretAuth } from './types.ts';
import type { RedisContext } from './context.ts';
import { fail, issue, ok, type ConfigIssue, type ObjectRef, type Result } from '../../model/result.ts';
import type { SecretProblem } from '../../model/secret-refs.ts';

/** Credentials; '' means "not set" (left out of the config). */
export interface Credentials {
  readonly password: string;
  readonly username: string;
}

export const NO_CREDENTIALS: Credentials = Object.freeze({ password: '', username: '' });

/**
 * The credentials `auth` (the field at `path` of `owner`) asks for. A Secret not in the input gives undefined with
 * an error: the owner is treated as absent, as Aeraki does (the shared render case 50; the Kubernetes source never
 * gets here: it rejects the owner, controller/kube/secrets.ts). A Secret that cannot serve it fails.
 */
export function resolveAuth(
  ctx: RedisContext,
  auth: RedisAuth | undefined,
  owner: ObjectRef,
  path: string,
): Result<Credentials | undefined> {
  if (auth?.plain) return ok(auth.plain);
  const ref = auth?.secret;
  if (!ref) return ok(NO_CREDENTIALS);
  const secret = ctx.secret(ref.name);
  if (!secret) {
    const where = `${owner.namespace}/${ref.name}`;
    return ok(undefined, [issue(owner, `${path}.secret.name`, `Secret ${where} not found`)]);
  }
  const data = secret.spec.data;
  const problems = secretProblems(ref, data, NONE, path);
  if (problems.length > 0) {
    const where = `${owner.namespace}/${ref.name}`;
    return fail(problems.map((p): ConfigIssue => issue(owner, p.path, `Secret ${where} ${p.message}`)));
  }
  const passwordKey = passwordKeyOf(ref, data);
  const usernameKey = usernameKeyOf(ref);
  const value = (key: string): string => (Object.hasOwn(data, key) ? (data[key] ?? '').trim() : '');
  return ok({ password: value(passwordKey), username: value(usernameKey) });
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Why the Secret's `data` cannot give the credentials `auth` (at `path`, the auth field) asks for: the password key
 * missing, empty (after trimming) or not valid base64 (`undecodable`); a `usernameField` missing; the username key
 * not valid base64. The default `username` key may be absent or empty (no username is sent).
 */
export function secretProblems(
  auth: SecretAuth,
  data: Readonly<Record<string, string>>,
  undecodable: ReadonlySet<string>,
  path: string,
): SecretProblem[] {
  const out: SecretProblem[] = [];
  const passwordKey = passwordKeyOf(auth, data);
  const passwordPath = auth.passwordField ? `${path}.secret.passwordField` : `${path}.secret`;
  if (!Object.hasOwn(data, passwordKey)) {
    const message = auth.passwordField
      ? `has no key "${passwordKey}"`
      : 'has no key "password" (nor "token")';
    out.push({ path: passwordPath, message });
  } else if (undecodable.has(passwordKey)) {
    out.push({ path: passwordPath, message: `key "${passwordKey}" is not valid base64` });
  } else if ((data[passwordKey] ?? '').trim() === '') {
    out.push({ path: passwordPath, message: `key "${passwordKey}" is empty` });
  }
  const usernameKey = usernameKeyOf(auth);
  const usernamePath = auth.usernameField ? `${path}.secret.usernameField` : `${path}.secret`;
  if (auth.usernameField && !Object.hasOwn(data, usernameKey)) {
    out.push({ path: usernamePath, message: `has no key "${usernameKey}"` });
  } else if (undecodable.has(usernameKey)) {
    out.push({ path: usernamePath, message: `key "${usernameKey}" is not valid base64` });
  }
  return out;
}

/** The password key: `passwordField`, else `password`, else `token` when the data has no `password` key. */
export function passwordKeyOf(auth: SecretAuth, data: Readonly<Record<string, string>>): string {
  return auth.passwordField ?? (Object.hasOwn(data, 'password') ? 'password' : 'token');
}

/** The username key: `usernameField`, else `username`. */
export function usernameKeyOf(auth: SecretAuth): string {
  return auth.usernameField ?? 'username';
}

/** `{inlineString}` DataSource, or undefined for an empty value. */
export function inline(value: string): { inlineString: string } | undefined {
  return value === '' ? undefined : { inlineString: value };
}
