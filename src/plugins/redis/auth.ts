/**
 * Redis auth from a RedisService or RedisDestination (Aeraki internal/plugin/redis/outbound.go:120-172, with D12):
 * `plain` as written; `secret` from the Secret of that name in the object's namespace, password key
 * `passwordField`, else `password`, else `token` when there is no `password` key; username key `usernameField`,
 * else `username`; values trimmed; a missing key gives nothing. A missing Secret is an input error of the owner.
 */
import type { RedisAuth, SecretAuth } from './types.ts';
import type { RedisContext } from './context.ts';
import { fail, issue, ok, type ObjectRef, type Result } from '../../model/result.ts';

/** Credentials; '' means "not set" (left out of the config). */
export interface Credentials {
  readonly password: string;
  readonly username: string;
}

export const NO_CREDENTIALS: Credentials = Object.freeze({ password: '', username: '' });

/** `path` is the auth field of `owner` (for the issue when the Secret is missing). */
export function resolveAuth(
  ctx: RedisContext,
  auth: RedisAuth | undefined,
  owner: ObjectRef,
  path: string,
): Result<Credentials> {
  if (auth?.plain) return ok(auth.plain);
  const ref = auth?.secret;
  if (!ref) return ok(NO_CREDENTIALS);
  const secret = ctx.secret(ref.name);
  if (!secret) {
    const where = `${owner.namespace}/${ref.name}`;
    return fail([issue(owner, `${path}.secret.name`, `Secret ${where} not found`)]);
  }
  const data = secret.spec.data;
  const passwordKey = passwordKeyOf(ref, data);
  const usernameKey = usernameKeyOf(ref);
  const value = (key: string): string => (Object.hasOwn(data, key) ? (data[key] ?? '').trim() : '');
  return ok({ password: value(passwordKey), username: value(usernameKey) });
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
