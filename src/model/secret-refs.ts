/**
 * The Secrets config objects name, and the keys of them that are used (Redis auth, README D12): a RedisService's
 * `spec.settings.auth.secret` and a RedisDestination's `spec.trafficPolicy.connectionPool.redis.auth.secret`, each a
 * Secret of the object's own namespace. The Kubernetes source reads exactly these Secrets, by name, and keeps only
 * these keys (least privilege: nothing else of a Secret is held).
 */
import type { ConfigObject } from './objects.ts';
import type { SecretAuth } from './redis.ts';

/** A Secret named by an object: `path` is the auth field (its `.secret.name` names the Secret). */
export interface SecretRef {
  readonly auth: SecretAuth;
  readonly path: string;
}

/** The Secrets `o` names, in field order (none for kinds that name none). */
export function secretRefsOf(o: ConfigObject): SecretRef[] {
  const out: SecretRef[] = [];
  if (o.kind === 'RedisService') {
    const auth = o.spec.settings?.auth?.secret;
    if (auth) out.push({ auth, path: 'spec.settings.auth' });
  } else if (o.kind === 'RedisDestination') {
    const auth = o.spec.trafficPolicy?.connectionPool?.redis?.auth?.secret;
    if (auth) out.push({ auth, path: 'spec.trafficPolicy.connectionPool.redis.auth' });
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

/** The part of `data` that `auths` read (the keys present of those `passwordKeyOf` and `usernameKeyOf` name). */
export function usedSecretData(
  auths: readonly SecretAuth[],
  data: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of auths) {
    for (const key of [passwordKeyOf(a, data), usernameKeyOf(a)]) {
      const value = data[key];
      if (Object.hasOwn(data, key) && value !== undefined) out[key] = value;
    }
  }
  return out;
}
