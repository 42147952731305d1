import type { experimental } from '@grpc/grpc-js';
import { CertificateMaterial } from './cert-material.ts';

type CaListener = experimental.CaCertificateUpdateListener;
type IdListener = experimental.IdentityCertificateUpdateListener;

/**
 * A CertificateProvider serving another provider's key pair and its root(s) plus extra roots set here: a server that
 * verifies clients of two CAs (the mesh's, and the controller's own CA for the waypoints' xDS credentials). The
 * inner provider is listened to only while this one has listeners; a change of either the inner root or the extra
 * roots reaches listeners at once (new handshakes only, as CertificateMaterial).
 */
export class ExtraRootsProvider extends CertificateMaterial {
  private innerRoot: Buffer | undefined;
  private extra: Buffer | undefined;
  /** Called after the inner provider's root changed (e.g. to hand the new root to those who verify this server). */
  onBaseRootChange: (() => void) | undefined;
  private readonly onCa: CaListener = (update) => {
    const next = update?.caCertificate ?? undefined;
    const changed = next === undefined ? this.innerRoot !== undefined : !this.innerRoot?.equals(next);
    this.innerRoot = next;
    this.publishRoot();
    if (changed) this.onBaseRootChange?.();
  };
  private readonly onId: IdListener = (update) => {
    if (update) this.setIdentity({ cert: update.certificate, key: update.privateKey });
  };

  constructor(inner: experimental.CertificateProvider) {
    super((active) => {
      if (active) {
        inner.addCaCertificateListener(this.onCa);
        inner.addIdentityCertificateListener(this.onId);
      } else {
        inner.removeCaCertificateListener(this.onCa);
        inner.removeIdentityCertificateListener(this.onId);
      }
    });
  }

  /** The inner provider's root(s) as last heard (undefined before the first, or while nobody listens). */
  get baseRoot(): Buffer | undefined {
    return this.innerRoot;
  }

  /** Sets the extra root(s) (PEM; undefined: none); applied when it differs from the current ones. */
  setExtraRoots(pem: Buffer | undefined): void {
    if (pem === undefined ? this.extra === undefined : this.extra?.equals(pem) === true) return;
    this.extra = pem;
    this.publishRoot();
  }

  private publishRoot(): void {
    if (this.innerRoot === undefined) return;
    const parts = [this.innerRoot];
    if (this.extra !== undefined) {
      const nl = this.innerRoot.at(-1) === 0x0a ? [] : [Buffer.from('\n')];
      parts.push(...nl, this.extra);
    }
    this.setRoot(Buffer.concat(parts));
  }
}
