/**
 * The webhook's serving certificate from two PEM files, watched by polling (stat follows the symlinks Kubernetes
 * swaps when a Secret changes, which fs.watch misses). A change is applied only when the files form a valid pair
 * (the key matches the certificate), so a half-written rotation keeps the previous pair; `onChange` listeners hear
 * every applied pair (server.ts hands it to `tls.Server.setSecureContext`, so new handshakes use it and open
 * connections are untouched).
 */
import { unwatchFile, watchFile } from 'node:fs';
import { readKeyPair, type KeyPair } from '../kit/certs/key-pair.ts';
import { errorFields, type Logger } from '../util/logger.ts';

export class ServingCertificate {
  private pair: KeyPair;
  private readonly listeners = new Set<(pair: KeyPair) => void>();
  private watching = false;

  /** Throws when the files are missing or do not form a pair (a start-up configuration error). */
  constructor(
    private readonly certFile: string,
    private readonly keyFile: string,
    private readonly logger: Logger,
    private readonly pollIntervalMs = 1000,
  ) {
    this.pair = readKeyPair(certFile, keyFile);
  }

  get current(): KeyPair {
    return this.pair;
  }

  /** Calls `listener` with every pair applied from now on, and starts watching the files. */
  onChange(listener: (pair: KeyPair) => void): void {
    this.listeners.add(listener);
    if (this.watching) return;
    this.watching = true;
    for (const f of [this.certFile, this.keyFile]) {
      watchFile(f, { interval: this.pollIntervalMs, persistent: false }, this.onFileChange);
    }
  }

  /** Re-reads the files now; true when they hold a new valid pair, which is then applied. */
  reload(): boolean {
    let next: KeyPair;
    try {
      next = readKeyPair(this.certFile, this.keyFile);
    } catch (err) {
      this.logger.warn('webhook: certificate files unusable, keeping the previous pair', errorFields(err));
      return false;
    }
    if (next.cert.equals(this.pair.cert) && next.key.equals(this.pair.key)) return false;
    this.pair = next;
    this.logger.info('webhook: serving certificate reloaded', { certFile: this.certFile });
    for (const l of this.listeners) l(next);
    return true;
  }

  /** Stops watching; idempotent. */
  close(): void {
    this.listeners.clear();
    if (!this.watching) return;
    this.watching = false;
    for (const f of [this.certFile, this.keyFile]) unwatchFile(f, this.onFileChange);
  }

  private readonly onFileChange = (): void => {
    this.reload();
  };
}
