/**
 * The controller's own certificate, whoever issues it: one interface for the RDS server (a grpc-js
 * CertificateProvider: the root verifies clients, the key pair is served) and the MCP client (`current()`), plus
 * a status for `/readyz` and the metrics.
 */
import type { experimental } from '@grpc/grpc-js';
import type { KeyPair } from '../kit/certs/key-pair.ts';

/** `--cert-provider`: Istio's CA (`istiod`), PEM files (`files`), or development certificates (`dev`). */
export type CertProviderKind = 'istiod' | 'files' | 'dev';

export interface IdentityStatus {
  readonly provider: CertProviderKind;
  /** When the certificate in use expires (ms since the epoch); undefined before the first. */
  readonly expiresAt: number | undefined;
  /** Cumulative renewals (istiod: certificates issued; files: changed files applied) and failed attempts. */
  readonly renewals: { readonly success: number; readonly failure: number };
  /** The last failure, cleared by the next success. */
  readonly lastError: string | undefined;
  /** The SPIFFE identity asked for (istiod only). */
  readonly identity?: string;
  /** What keeps the certificate from being used although it was issued (no usable client root yet). */
  readonly blocking?: string;
}

/**
 * Contract: `start()` begins obtaining and watching the material (idempotent); listeners hear changes as
 * CertificateMaterial describes; `current()` is the key pair in use (the chain leaf first), undefined until the
 * first arrives; `status()` is cheap (no I/O) and safe to call at scrape time; `close()` stops timers and watches
 * and forgets listeners (idempotent).
 */
export interface IdentityProvider extends experimental.CertificateProvider {
  readonly kind: CertProviderKind;
  start(): void;
  current(): KeyPair | undefined;
  status(): IdentityStatus;
  close(): void;
}

/**
 * `/readyz` for the certificate: not ready before the first certificate or after it expired (the reason says
 * why); ready otherwise, with the last renewal failure as detail while one is pending.
 */
export function identityReadiness(
  status: IdentityStatus,
  now: number,
): { readonly ready: boolean; readonly reason?: string } {
  const why = status.lastError ? `: ${status.lastError}` : '';
  if (status.blocking) return { ready: false, reason: `${status.blocking}${why}` };
  if (status.expiresAt === undefined) {
    return { ready: false, reason: `waiting for the first certificate (${status.provider})${why}` };
  }
  if (now >= status.expiresAt) {
    return {
      ready: false,
      reason: `certificate expired at ${new Date(status.expiresAt).toISOString()}${why}`,
    };
  }
  return status.lastError
    ? { ready: true, reason: `renewal failing, serving the current certificate${why}` }
    : { ready: true };
}

/** `spiffe://<trust domain>/ns/<namespace>/sa/<service account>`, the identity Istio's CA issues. */
export function spiffeId(trustDomain: string, namespace: string, serviceAccount: string): string {
  return `spiffe://${trustDomain}/ns/${namespace}/sa/${serviceAccount}`;
}
