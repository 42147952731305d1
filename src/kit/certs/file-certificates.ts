import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CertificateMaterial } from './cert-material.ts';
import { watchFiles } from '../../util/file-watch.ts';
import { readKeyPair, type KeyPair } from './key-pair.ts';
import { errorFields, type Logger } from '../../util/logger.ts';

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  /** The root(s) peer certificates must chain to (the mesh root). */
  readonly caFile: string;
}

/** What one reload did: applied a change, found nothing new, or found the files unusable. */
export type ReloadResult = 'applied' | 'unchanged' | 'failed';

function readMaterial(files: TlsFiles): { ca: Buffer } & KeyPair {
  const ca = readFileSync(files.caFile);
  new X509Certificate(ca);
  return { ca, ...readKeyPair(files.certFile, files.keyFile) };
}

/**
 * A grpc-js CertificateProvider over three PEM files, watched by polling while anyone listens. A change is
 * applied only when the files form a valid set (the key matches the certificate), so a half-written rotation
 * keeps the previous material; established connections are never touched (see CertificateMaterial).
 */
export class FileCertificateProvider extends CertificateMaterial {
  private stopWatch: (() => void) | undefined;

  /** Throws when the files are missing or inconsistent (a startup configuration error). */
  constructor(
    protected readonly files: TlsFiles,
    private readonly logger: Logger,
    private readonly pollIntervalMs = 1000,
  ) {
    super((active) => this.watch(active));
    const first = readMaterial(files);
    this.setRoot(first.ca);
    this.setIdentity({ cert: first.cert, key: first.key });
  }

  /** Re-reads the files now; returns true when the material changed and was applied. */
  reload(): boolean {
    let next: ReturnType<typeof readMaterial>;
    try {
      next = readMaterial(this.files);
    } catch (err) {
      this.logger.warn('tls: files unusable, keeping the previous certificates', errorFields(err));
      this.reloaded('failed');
      return false;
    }
    const caChanged = this.setRoot(next.ca);
    const idChanged = this.setIdentity({ cert: next.cert, key: next.key });
    if (!caChanged && !idChanged) {
      this.reloaded('unchanged');
      return false;
    }
    this.logger.info('tls: material reloaded', { ca: caChanged, certificate: idChanged });
    this.reloaded('applied');
    return true;
  }

  /** Hears the result of every reload (never during construction); subclasses count them. */
  protected reloaded(result: ReloadResult): void {
    void result;
  }

  /** Stops watching the files (also happens when the last listener goes). */
  close(): void {
    this.clearListeners();
  }

  private watch(active: boolean): void {
    this.stopWatch?.();
    this.stopWatch = undefined;
    if (!active) return;
    const { caFile, certFile, keyFile } = this.files;
    this.stopWatch = watchFiles([caFile, certFile, keyFile], this.pollIntervalMs, () => this.reload());
  }
}
