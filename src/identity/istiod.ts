/**
 * The `istiod` certificate provider: the controller gets its certificate the way every sidecar does. It generates
 * a key pair, sends a CSR for `spiffe://<trust domain>/ns/<namespace>/sa/<service account>` to Istio's CA
 * (ca-client.ts) and serves the returned chain. Renewal is scheduled at 80% of the certificate's lifetime minus
 * up to 10% jitter, counted from when it arrived; a failed attempt is retried with capped, jittered backoff while
 * the current certificate keeps being served. Without a usable certificate (none yet, expired, or within
 * URGENT_WINDOW_MS of expiry) the retries are at most URGENT_RETRY_MAX_MS apart, so the controller is ready again
 * within that long of the CA's return; a backoff delay never runs past the start of that window. Each failure is
 * one warn line naming the cause (no stack trace) and saying when the certificate in use expires or expired. The root that RDS clients must chain to is read from a file,
 * watched, and applied to new handshakes when it changes.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Backoff, type BackoffOptions } from '../util/backoff.ts';
import { CertificateMaterial } from '../kit/certs/cert-material.ts';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.ts';
import { watchFiles } from '../util/file-watch.ts';
import type { KeyPair } from '../kit/certs/key-pair.ts';
import type { Logger } from '../util/logger.ts';
import { createCertificate, type CaClientOptions } from './ca-client.ts';
import { newCertificateRequest } from '../kit/certs/csr.ts';
import type { IdentityProvider, IdentityStatus } from './types.ts';

export interface IstiodIdentityOptions {
  readonly ca: CaClientOptions;
  /** The SPIFFE identity asked for. */
  readonly identity: string;
  /** Lifetime asked for, ms (`--cert-ttl`). */
  readonly ttlMs: number;
  /** PEM root(s) RDS clients must chain to; watched. */
  readonly clientRootFile: string;
  /** Poll interval of the root file, ms (default 1000). */
  readonly pollIntervalMs?: number;
  readonly clock?: Clock;
  /** Retry delays after a failed request (default 1 s doubling up to 60 s). */
  readonly backoff?: BackoffOptions;
  /** Randomness of the rotation jitter, in [0, 1) (default Math.random). */
  readonly random?: () => number;
  readonly keyBits?: number;
  readonly logger: Logger;
}

/** How close to expiry a certificate counts as unusable for the retry delay. */
export const URGENT_WINDOW_MS = 60_000;
/** The longest retry delay while no usable certificate is held. */
export const URGENT_RETRY_MAX_MS = 5_000;

/** The delay before the next attempt after a failure: the backoff's, shortened while no usable certificate is held. */
export function retryDelay(backoffMs: number, now: number, expiresAt: number | undefined): number {
  if (expiresAt === undefined) return Math.min(backoffMs, URGENT_RETRY_MAX_MS);
  const urgentFrom = expiresAt - URGENT_WINDOW_MS;
  if (now >= urgentFrom) return Math.min(backoffMs, URGENT_RETRY_MAX_MS);
  return Math.min(backoffMs, Math.max(urgentFrom - now, 0));
}

/** An error and its causes in one line: `outer: inner: innermost`. */
function causeLine(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  while (e instanceof Error && parts.length < 5) {
    parts.push(e.message);
    e = e.cause;
  }
  if (parts.length === 0) parts.push(typeof err === 'string' ? err : JSON.stringify(err));
  return parts.join(': ');
}

/** When to renew a certificate of `lifetimeMs`, counted from its arrival: 80% minus up to 10% jitter. */
export function renewalDelay(lifetimeMs: number, random: number): number {
  return Math.max(0, Math.floor(lifetimeMs * (0.8 - 0.1 * random)));
}

interface Issued extends KeyPair {
  readonly leaf: X509Certificate;
}

/** The served chain (the leaf, then intermediates; a trailing self-signed root is left out) and its key. */
function issuedPair(chain: readonly string[], keyPem: string): Issued {
  const pems = chain.join('\n').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const certs = pems.map((p) => new X509Certificate(p));
  const leaf = certs[0];
  if (!leaf) throw new Error('the CA returned no certificate');
  if (!leaf.checkPrivateKey(createPrivateKey(keyPem))) {
    throw new Error('the certificate returned by the CA does not match the key of the request');
  }
  const last = certs[certs.length - 1]!;
  const served = certs.length > 1 && last.subject === last.issuer ? pems.slice(0, -1) : pems;
  return { cert: Buffer.from(`${served.join('\n')}\n`), key: Buffer.from(keyPem), leaf };
}

export class IstiodIdentityProvider extends CertificateMaterial implements IdentityProvider {
  readonly kind = 'istiod' as const;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: Backoff;
  private readonly log: Logger;
  private readonly counts = { success: 0, failure: 0 };
  private lastError: string | undefined;
  private rootError: string | undefined;
  private expiresAt: number | undefined;
  private timer: TimerHandle | undefined;
  private inFlight: Promise<void> | undefined;
  private stopRootWatch: (() => void) | undefined;
  private state: 'new' | 'running' | 'closed' = 'new';

  constructor(private readonly o: IstiodIdentityOptions) {
    super();
    this.clock = o.clock ?? systemClock;
    this.random = o.random ?? Math.random;
    this.backoff = new Backoff({ initialMs: 1000, maxMs: 60_000, multiplier: 2, ...o.backoff });
    this.log = o.logger.child({ component: 'certificates' });
  }

  start(): void {
    if (this.state !== 'new') return;
    this.state = 'running';
    this.loadRoot();
    this.stopRootWatch = watchFiles([this.o.clientRootFile], this.o.pollIntervalMs ?? 1000, () =>
      this.loadRoot(),
    );
    void this.renew();
  }

  /** Requests a certificate now unless a request is in flight; resolves when that attempt ended. */
  renew(): Promise<void> {
    this.inFlight ??= this.attempt().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Re-reads the client root file now (it is also polled); returns true when a new root was applied. */
  loadRoot(): boolean {
    try {
      const pem = readFileSync(this.o.clientRootFile);
      new X509Certificate(pem);
      this.rootError = undefined;
      const changed = this.setRoot(pem);
      if (changed) this.log.info('client root loaded', { file: this.o.clientRootFile });
      return changed;
    } catch (err) {
      this.rootError = `client root ${this.o.clientRootFile} unusable: ${(err as Error).message}`;
      const keeping = this.currentRoot ? ', keeping the previous one' : '';
      this.log.warn(`client root unusable${keeping}`, {
        file: this.o.clientRootFile,
        error: (err as Error).message,
      });
      return false;
    }
  }

  current(): KeyPair | undefined {
    return this.currentIdentity;
  }

  status(): IdentityStatus {
    const rootMissing = this.currentRoot === undefined ? this.rootError : undefined;
    return {
      provider: 'istiod',
      expiresAt: this.expiresAt,
      renewals: { ...this.counts },
      lastError: this.lastError,
      identity: this.o.identity,
      ...(rootMissing ? { blocking: rootMissing } : {}),
    };
  }

  close(): void {
    this.state = 'closed';
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.stopRootWatch?.();
    this.clearListeners();
  }

  private schedule(delayMs: number): void {
    if (this.state !== 'running') return;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.renew();
    }, delayMs);
  }

  private async attempt(): Promise<void> {
    try {
      const request = await newCertificateRequest(this.o.identity, this.o.keyBits);
      const chain = await createCertificate(this.o.ca, request.csrPem, Math.ceil(this.o.ttlMs / 1000));
      if (this.state !== 'running') return;
      this.issued(issuedPair(chain, request.keyPem));
    } catch (err) {
      if (this.state !== 'running') return;
      this.counts.failure++;
      const cause = causeLine(err);
      this.lastError = `${this.o.ca.address}: ${cause}`;
      const now = this.clock.now();
      const retryMs = retryDelay(this.backoff.next(), now, this.current() ? this.expiresAt : undefined);
      this.log.warn(`${this.failureSummary(now)}: ${cause}; retrying in ${retryMs} ms`, {
        error: cause,
        ca: this.o.ca.address,
        retryMs,
        ...(this.expiresAt !== undefined ? { expiresAt: new Date(this.expiresAt).toISOString() } : {}),
      });
      this.schedule(retryMs);
    }
  }

  /** What a failed attempt means for the certificate in use. */
  private failureSummary(now: number): string {
    if (!this.currentIdentity || this.expiresAt === undefined) return 'cannot obtain a certificate yet';
    const at = new Date(this.expiresAt).toISOString();
    if (now >= this.expiresAt) return `certificate renewal failed, the current certificate expired at ${at}`;
    return `certificate renewal failed, serving the current certificate (expires at ${at})`;
  }

  private issued(pair: Issued): void {
    const notBefore = Date.parse(pair.leaf.validFrom);
    const notAfter = Date.parse(pair.leaf.validTo);
    this.setIdentity({ cert: pair.cert, key: pair.key });
    this.expiresAt = notAfter;
    this.counts.success++;
    this.lastError = undefined;
    this.backoff.reset();
    const san = pair.leaf.subjectAltName ?? '';
    if (!san.split(', ').includes(`URI:${this.o.identity}`)) {
      this.log.warn('the CA issued another identity than the one asked for', { asked: this.o.identity, san });
    }
    const delay = renewalDelay(notAfter - notBefore, this.random());
    this.log.info('certificate issued', {
      identity: this.o.identity,
      serial: pair.leaf.serialNumber,
      expires: pair.leaf.validTo,
      renewInMs: delay,
    });
    this.schedule(delay);
  }
}
