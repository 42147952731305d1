import type { experimental } from '@grpc/grpc-js';
import type { KeyPair } from './key-pair.ts';

type CaListener = experimental.CaCertificateUpdateListener;
type IdListener = experimental.IdentityCertificateUpdateListener;

/** Called when the first listener registers (`active` true) and when the last one leaves (`active` false). */
export type ActivityHook = (active: boolean) => void;

/**
 * A grpc-js CertificateProvider whose material is pushed in: the root(s) peers must chain to (`setRoot`) and the
 * own key pair (`setIdentity`). Listeners hear the current material asynchronously after registering (grpc-js
 * registers its own watcher after adding ours) and every later change synchronously. grpc-js applies a change to
 * new handshakes only (`setSecureContext`); established connections and their streams are never touched. Before
 * both a root and a key pair are known, grpc-js drops incoming connections.
 */
export class CertificateMaterial implements experimental.CertificateProvider {
  private root: Buffer | undefined;
  private identity: KeyPair | undefined;
  private readonly caListeners = new Set<CaListener>();
  private readonly idListeners = new Set<IdListener>();
  private active = false;

  constructor(private readonly onActivity: ActivityHook = () => {}) {}

  /** The root PEM in use; undefined before the first. */
  get currentRoot(): Buffer | undefined {
    return this.root;
  }

  /** The certificate chain and key in use; undefined before the first. */
  get currentIdentity(): KeyPair | undefined {
    return this.identity;
  }

  /** Applies a new root; returns false when it equals the current one. */
  setRoot(ca: Buffer): boolean {
    if (this.root?.equals(ca)) return false;
    this.root = ca;
    for (const l of this.caListeners) l({ caCertificate: ca });
    return true;
  }

  /** Applies a new key pair; returns false when it equals the current one. */
  setIdentity(pair: KeyPair): boolean {
    if (this.identity && this.identity.cert.equals(pair.cert) && this.identity.key.equals(pair.key))
      return false;
    this.identity = pair;
    for (const l of this.idListeners) l({ certificate: pair.cert, privateKey: pair.key });
    return true;
  }

  addCaCertificateListener(listener: CaListener): void {
    this.caListeners.add(listener);
    this.activityChanged();
    setImmediate(() => {
      if (this.caListeners.has(listener) && this.root) listener({ caCertificate: this.root });
    });
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.caListeners.delete(listener);
    this.activityChanged();
  }

  addIdentityCertificateListener(listener: IdListener): void {
    this.idListeners.add(listener);
    this.activityChanged();
    setImmediate(() => {
      const pair = this.identity;
      if (this.idListeners.has(listener) && pair) listener({ certificate: pair.cert, privateKey: pair.key });
    });
  }

  removeIdentityCertificateListener(listener: IdListener): void {
    this.idListeners.delete(listener);
    this.activityChanged();
  }

  /** Forgets every listener. */
  protected clearListeners(): void {
    this.caListeners.clear();
    this.idListeners.clear();
    this.activityChanged();
  }

  private activityChanged(): void {
    const active = this.caListeners.size > 0 || this.idListeners.size > 0;
    if (active === this.active) return;
    this.active = active;
    this.onActivity(active);
  }
}
