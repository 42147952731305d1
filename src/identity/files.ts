/**
 * The `files` and `dev` certificate providers: PEM files (cert-manager's Secret, or the development certificates
 * of `--dev-certs`), watched by polling; a valid change is applied to new handshakes (FileCertificateProvider).
 */
import { X509Certificate } from 'node:crypto';
import { FileCertificateProvider, type ReloadResult, type TlsFiles } from '../kit/certs/file-certificates.ts';
import type { KeyPair } from '../kit/certs/key-pair.ts';
import type { Logger } from '../util/logger.ts';
import type { IdentityProvider, IdentityStatus } from './types.ts';

export interface FilesIdentityOptions extends TlsFiles {
  readonly kind: 'files' | 'dev';
  readonly logger: Logger;
  /** Poll interval of the files, ms (default 1000). */
  readonly pollIntervalMs?: number;
}

function notAfter(pair: KeyPair | undefined): number | undefined {
  return pair ? Date.parse(new X509Certificate(pair.cert).validTo) : undefined;
}

export class FilesIdentityProvider extends FileCertificateProvider implements IdentityProvider {
  readonly kind: 'files' | 'dev';
  private readonly counts = { success: 0, failure: 0 };
  private lastError: string | undefined;
  private expiresAt: number | undefined;

  /** Throws when the files are missing or inconsistent (a start-up configuration error). */
  constructor(options: FilesIdentityOptions) {
    super(options, options.logger.child({ component: 'certificates' }), options.pollIntervalMs);
    this.kind = options.kind;
    this.expiresAt = notAfter(this.currentIdentity);
  }

  /** The files are read in the constructor and watched while the RDS server listens. */
  start(): void {}

  current(): KeyPair | undefined {
    return this.currentIdentity;
  }

  status(): IdentityStatus {
    return {
      provider: this.kind,
      expiresAt: this.expiresAt,
      renewals: { ...this.counts },
      lastError: this.lastError,
    };
  }

  protected override reloaded(result: ReloadResult): void {
    const files = this.files;
    if (result === 'unchanged') return;
    if (result === 'failed') {
      this.counts.failure++;
      this.lastError = `${files.certFile}, ${files.keyFile} or ${files.caFile} unusable`;
      return;
    }
    this.counts.success++;
    this.lastError = undefined;
    this.expiresAt = notAfter(this.currentIdentity);
  }
}
