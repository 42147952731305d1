// Kubernetes projected service account tokens as the fake Istio CA reads them: a JWT whose payload names the
// audiences (`aud`) and the service account (`sub: system:serviceaccount:<ns>:<sa>`). The fake does not verify
// signatures (a TokenReview would), so the signature here is a fixed placeholder.

export interface TokenClaims {
  readonly namespace: string;
  readonly serviceAccount: string;
  /** Default `['istio-ca']`. */
  readonly audience?: string | readonly string[];
  /** Seconds since the epoch (default one hour from now). */
  readonly exp?: number;
}

const b64url = (v: object): string => Buffer.from(JSON.stringify(v)).toString('base64url');

export function serviceAccountToken(c: TokenClaims): string {
  const payload = {
    aud: c.audience ?? ['istio-ca'],
    sub: `system:serviceaccount:${c.namespace}:${c.serviceAccount}`,
    iss: 'https://kubernetes.default.svc.cluster.local',
    exp: c.exp ?? Math.floor(Date.now() / 1000) + 3600,
  };
  return `${b64url({ alg: 'RS256', kid: 'fake' })}.${b64url(payload)}.${Buffer.from('unsigned').toString('base64url')}`;
}

export interface TokenIdentity {
  readonly namespace: string;
  readonly serviceAccount: string;
}

/** The service account of a bearer token whose audiences include `audience`; a string says why not. */
export function tokenIdentity(authorization: string | undefined, audience: string): TokenIdentity | string {
  const m = /^Bearer\s+(\S+)$/.exec(authorization ?? '');
  if (!m) return 'no bearer token';
  const parts = m[1]!.split('.');
  let claims: { aud?: unknown; sub?: unknown };
  try {
    claims = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')) as typeof claims;
  } catch {
    return 'the token is not a JWT';
  }
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.includes(audience))
    return `the token's audiences ${JSON.stringify(claims.aud)} do not include ${audience}`;
  const sub = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(String(claims.sub));
  if (!sub) return `the token's subject ${String(claims.sub)} is no service account`;
  return { namespace: sub[1]!, serviceAccount: sub[2]! };
}
