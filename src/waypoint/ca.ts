/**
 * The waypoints' CA: a root of the controller's own that issues every waypoint's xDS client certificate, kept in
 * the Secret `aeraki-waypoint-ca` (`ca.crt`, `ca.key`) of the controller's namespace. Every replica reads it through
 * one shared informer (a `metadata.name` field selector, so no other Secret is listed): its root is what the xDS
 * server must trust for waypoints' client certificates (`root()`, `onRoot`). The leader creates it once, when the
 * first accepted Gateway needs a certificate (`ensure`): a cluster without waypoints gets no Secret.
 *
 * The CA lives 10 years and is not rotated by the controller (README, Limits): deleting the Secret makes the
 * leader create a new one and reissue every waypoint's certificate.
 */
import { CoreV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeInformers, Subscription } from '../kit/kube/informer-hub.ts';
import type { RuntimePart } from '../kit/runtime.ts';
import { SinkError } from '../kit/write.ts';
import { MANAGER_LABEL, MANAGER_VALUE } from '../model/constants.ts';
import { isPlainObject } from '../util/json.ts';
import type { Logger } from '../util/logger.ts';
import { isCaPair, newWaypointCa, type PemPair } from './gateway-certs.ts';
import type { SecretData, WaypointKubePort } from './gateway-kube.ts';

export const WAYPOINT_CA_SECRET = 'aeraki-waypoint-ca';

export interface WaypointCaOptions {
  readonly kc: KubeConfig;
  readonly informers: KubeInformers;
  /** The controller's namespace, where the CA Secret lives. */
  readonly namespace: string;
  readonly trustDomain: string;
  readonly logger: Logger;
}

const decode = (v: string | undefined) =>
  v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');

/** The CA of a Secret's data, undefined unless it holds a certificate and its key. */
export function caOfSecret(s: SecretData | undefined): PemPair | undefined {
  const cert = decode(s?.data?.['ca.crt']);
  const key = decode(s?.data?.['ca.key']);
  if (cert === undefined || key === undefined) return undefined;
  return isCaPair({ cert, key }) ? { cert, key } : undefined;
}

function reduceCaSecret(o: KubernetesObject): KubernetesObject {
  const data = (o as { data?: unknown }).data;
  const m = o.metadata ?? {};
  return {
    metadata: { name: m.name, namespace: m.namespace, resourceVersion: m.resourceVersion },
    data: isPlainObject(data) ? { 'ca.crt': data['ca.crt'], 'ca.key': data['ca.key'] } : {},
  } as KubernetesObject;
}

export class WaypointCa {
  private readonly o: WaypointCaOptions;
  private readonly sub: Subscription;
  private held: PemPair | undefined;
  private readonly listeners = new Set<(root: string | undefined) => void>();

  constructor(o: WaypointCaOptions) {
    this.o = o;
    const core = o.kc.makeApiClient(CoreV1Api);
    const fieldSelector = `metadata.name=${WAYPOINT_CA_SECRET}`;
    this.sub = o.informers.subscribe(
      {
        kind: 'Secret',
        resource: { group: '', version: 'v1', plural: 'secrets' },
        path: `/api/v1/namespaces/${o.namespace}/secrets`,
        fieldSelector,
        list: async () => await core.listNamespacedSecret({ namespace: o.namespace, fieldSelector }),
      },
      {
        upsert: (obj) => this.set(caOfSecret(obj as SecretData)),
        delete: () => this.set(undefined),
      },
      { reduce: reduceCaSecret },
    );
  }

  /** The CA's root certificate (PEM), once read or created: add it to the xDS server's client trust. */
  root(): string | undefined {
    return this.held?.cert;
  }

  /** The CA with its key (the leader issues with it). */
  current(): PemPair | undefined {
    return this.held;
  }

  /** Called with the new root whenever it changes (undefined: the Secret was deleted); returns unsubscribe. */
  onRoot(listener: (root: string | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get synced(): boolean {
    return this.sub.synced;
  }

  whenSynced(): Promise<void> {
    return this.sub.whenSynced();
  }

  /** The every-replica part reading the Secret. */
  part(): RuntimePart {
    return {
      name: 'waypoint-ca',
      start: () => this.sub.start(),
      stop: () => this.sub.stop(),
    };
  }

  /**
   * The CA, created first when there is none (leader only). Another replica creating it at the same time: its
   * Secret is read back and used.
   */
  async ensure(port: WaypointKubePort, now: number): Promise<PemPair> {
    if (this.held) return this.held;
    const ca = newWaypointCa(now, this.o.trustDomain);
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: WAYPOINT_CA_SECRET,
        namespace: this.o.namespace,
        labels: { [MANAGER_LABEL]: MANAGER_VALUE },
      },
      type: 'Opaque',
      data: {
        'ca.crt': Buffer.from(ca.cert).toString('base64'),
        'ca.key': Buffer.from(ca.key).toString('base64'),
      },
    };
    try {
      await port.createSecret(this.o.namespace, body);
      this.o.logger.info('created the waypoint CA', {
        namespace: this.o.namespace,
        secret: WAYPOINT_CA_SECRET,
      });
      this.set(ca);
      return ca;
    } catch (err) {
      if (!(err instanceof SinkError) || err.code !== 409) throw err;
    }
    const existing = caOfSecret(await port.getSecret(this.o.namespace, WAYPOINT_CA_SECRET));
    if (!existing) {
      throw new SinkError(`Secret ${this.o.namespace}/${WAYPOINT_CA_SECRET} exists but holds no CA`, {
        transient: false,
      });
    }
    this.set(existing);
    return existing;
  }

  private set(ca: PemPair | undefined): void {
    if (ca?.cert === this.held?.cert && ca?.key === this.held?.key) return;
    this.held = ca;
    for (const l of [...this.listeners]) l(ca?.cert);
  }
}
