import { X509Certificate } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { experimental } from '@grpc/grpc-js';
import { readKeyPair } from '../util/key-pair.ts';
import { errorFields, type Logger } from '../util/logger.ts';

type CaListener = experimental.CaCertificateUpdateListener;
type IdListener = experimental.IdentityCertificateUpdateListener;

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  /** The root(s) client certificates must chain to (the mesh root). */
  readonly caFile: string;
}

interface Material {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

function readMaterial(files: TlsFiles): Material {
  const ca = readFileSync(files.caFile);
  new X509Certificate(ca);
  return { ca, ...readKeyPair(files.certFile, files.keyFile) };
}

/**
 * A grpc-js CertificateProvider over three PEM files, watched by polling (stat follows the symlinks Kubernetes
 * swaps on secret updates). A change is applied only when the files form a valid set (the key matches the
 * certificate), so a half-written rotation keeps the previous material; established connections are never
 * touched (grpc-js calls setSecureContext for new handshakes only). Listeners hear the current material
 * asynchronously after registering (grpc-js registers its own watcher after adding ours).
 */
export class FileCertificateProvider implements experimental.CertificateProvider {
  private material: Material;
  private readonly caListeners = new Set<CaListener>();
  private readonly idListeners = new Set<IdListener>();
  private watching = false;

  /** Throws when the files are missing or inconsistent (a startup configuration error). */
  constructor(
    private readonly files: TlsFiles,
    private readonly logger: Logger,
    private readonly pollIntervalMs = 1000,
  ) {
    this.material = readMaterial(files);
  }

  /** Re-reads the files now; returns true when the material changed and was applied. */
  reload(): boolean {
    let next: Material;
    try {
      next = readMaterial(this.files);
    } catch (err) {
      this.logger.warn('rds: TLS files unusable, keeping the previous certificates', errorFields(err));
      return false;
    }
    const caChanged = !next.ca.equals(this.material.ca);
    const idChanged = !next.cert.equals(this.material.cert) || !next.key.equals(this.material.key);
    if (!caChanged && !idChanged) return false;
    this.material = next;
    this.logger.info('rds: TLS material reloaded', { ca: caChanged, certificate: idChanged });
    if (caChanged) for (const l of this.caListeners) l({ caCertificate: next.ca });
    if (idChanged) for (const l of this.idListeners) l({ certificate: next.cert, privateKey: next.key });
    return true;
  }

  addCaCertificateListener(listener: CaListener): void {
    this.caListeners.add(listener);
    this.startWatching();
    setImmediate(() => {
      if (this.caListeners.has(listener)) listener({ caCertificate: this.material.ca });
    });
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.caListeners.delete(listener);
    this.maybeStopWatching();
  }

  addIdentityCertificateListener(listener: IdListener): void {
    this.idListeners.add(listener);
    this.startWatching();
    setImmediate(() => {
      if (this.idListeners.has(listener)) {
        listener({ certificate: this.material.cert, privateKey: this.material.key });
      }
    });
  }

  removeIdentityCertificateListener(listener: IdListener): void {
    this.idListeners.delete(listener);
    this.maybeStopWatching();
  }

  /** Stops watching the files (also happens when the last listener goes). */
  close(): void {
    this.caListeners.clear();
    this.idListeners.clear();
    this.maybeStopWatching();
  }

  private readonly onFileChange = (): void => {
    this.reload();
  };

  private startWatching(): void {
    if (this.watching) return;
    this.watching = true;
    for (const f of [this.files.caFile, this.files.certFile, this.files.keyFile]) {
      watchFile(f, { interval: this.pollIntervalMs, persistent: false }, this.onFileChange);
    }
  }

  private maybeStopWatching(): void {
    if (!this.watching || this.caListeners.size > 0 || this.idListeners.size > 0) return;
    this.watching = false;
    for (const f of [this.files.caFile, this.files.certFile, this.files.keyFile]) {
      unwatchFile(f, this.onFileChange);
    }
  }
}

/** The peer's identity from its certificate: the SPIFFE URI SAN if any, else the subject CN. */
export function peerIdentity(
  cert: { subject?: { CN?: string | string[] }; subjectaltname?: string } | undefined,
): string {
  if (!cert) return 'unauthenticated';
  const uri = (cert.subjectaltname ?? '')
    .split(',')
    .map((s) => s.trim())
    .find((s) => s.startsWith('URI:spiffe://'));
  if (uri) return uri.slice('URI:'.length);
  const cn = cert.subject?.CN;
  return (Array.isArray(cn) ? cn[0] : cn) ?? 'unknown';
}
