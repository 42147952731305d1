/**
 * The config sources of `aeraki serve`, by `--config-source`:
 * - `mcp`: istiod over MCP-over-xDS for the Istio kinds, plus the Kubernetes API for MetaRouter,
 *   ApplicationProtocol, the plugins' kinds and the mesh ConfigMap;
 * - `kube`: everything from the Kubernetes API, Kubernetes Services included (converted into ServiceEntries as
 *   istiod converts them; with `mcp` istiod sends those itself, so Services are not read from the API then);
 * - `dir`: everything from a watched directory, Services included.
 * `synced` is true once every source has delivered one complete state; it turns false again only while a kind
 * of the Kubernetes API is forbidden by RBAC (a kind whose CRD is not installed is empty, and synced). `partial`
 * is true while the directory holds a file never read well (the reconciler holds deletions meanwhile).
 */
import type { KubeInformers } from '../kit/kube/informer-hub.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeSource } from '../controller/kube/sources.ts';
import { firstHostIp, McpClient } from '../controller/mcp/index.ts';
import type { ConfigStore } from '../controller/store.ts';
import type { Logger } from '../util/logger.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import {
  forbiddenMessage,
  notInstalledMessage,
  type KindDiscoveryOptions,
} from '../kit/kube/kind-informer.ts';
import type { KeyPair } from '../kit/certs/key-pair.ts';
import { fileLimitsOf } from '../controller/config-file.ts';
import { DirSource } from '../controller/dir-source.ts';
import type { MeshOptions, SourceOptions } from './options.ts';

/** A kind not read now, with the line `/readyz` shows for it. */
export interface UnavailableKind {
  readonly kind: string;
  readonly reason: 'not_installed' | 'forbidden';
  readonly message: string;
}

/** One line for `/readyz`: `MetaRouter not installed (CRD ...): read as empty`, `MetaRouter forbidden: list ...`. */
export function describeUnavailable(k: UnavailableKind): string {
  return k.reason === 'forbidden' ? `${k.kind} ${k.message}` : k.message;
}

export class ConfigSources {
  readonly mcp: McpClient | undefined;
  readonly kube: KubeSource | undefined;
  readonly dir: DirSource | undefined;
  private readonly log: Logger;

  constructor(
    o: SourceOptions,
    /** The mesh's names, and the pod name (the MCP node). */
    shared: { readonly mesh: MeshOptions; readonly podName: string },
    store: ConfigStore,
    kc: KubeConfig | undefined,
    logger: Logger,
    backoff?: BackoffOptions,
    /** The controller's certificate, presented to istiod over TLS (`--cert-provider istiod`). */
    clientIdentity?: () => KeyPair | undefined,
    /** Rediscovery of kinds not installed and the backoff after 403 (tests shorten them). */
    discovery?: KindDiscoveryOptions,
    /** Called when a kind of the Kubernetes API changes state (installed, deleted, forbidden, granted). */
    onKindChange?: () => void,
    /** The process's shared informers. */
    informers?: KubeInformers,
  ) {
    this.log = logger.child({ component: 'sources' });
    const { rootNamespace, clusterDomain, revision, istioApiVersion } = shared.mesh;
    if (o.kind === 'dir') {
      this.dir = new DirSource({
        dir: o.dir,
        store,
        rootNamespace,
        debounceMs: o.watchDebounceMs,
        limits: fileLimitsOf(o),
        ...(o.stateFile !== undefined && o.stateFile !== '' ? { stateFile: o.stateFile } : {}),
        logger,
      });
      return;
    }
    if (!kc) throw new Error(`--config-source ${o.kind} needs the Kubernetes API`);
    this.kube = new KubeSource({
      kc,
      ...(informers ? { informers } : {}),
      store,
      kinds: store.kinds,
      rootNamespace,
      istio: o.kind === 'kube' ? istioApiVersion : false,
      services: o.kind === 'kube',
      // Both modes: over MCP, istiod's synthetic ServiceEntries carry no targetPort (D16).
      endpointPorts: store,
      clusterDomain,
      revision,
      secretRefreshMs: o.secretRefreshMs,
      ...(backoff ? { backoff } : {}),
      ...(discovery ? { discovery } : {}),
      ...(onKindChange ? { onKindChange } : {}),
      logger,
    });
    if (o.kind === 'mcp') {
      this.mcp = new McpClient(
        {
          address: o.istiodAddress,
          tls: o.istiodTls,
          ...(o.istiodRootCertFile ? { rootCertFile: o.istiodRootCertFile } : {}),
          ...(o.istiodTokenFile ? { tokenFile: o.istiodTokenFile } : {}),
          ...(clientIdentity ? { clientIdentity } : {}),
          apiVersion: istioApiVersion,
          revision,
          node: {
            podName: shared.podName,
            namespace: rootNamespace,
            podIp: firstHostIp(),
            clusterDomain,
          },
          ...(backoff ? { backoff } : {}),
        },
        { store, logger },
      );
    }
  }

  get synced(): boolean {
    if (this.dir) return this.dir.synced;
    return (this.kube?.synced ?? true) && (this.mcp?.synced ?? true);
  }

  /** Kinds of the Kubernetes API not read now: not installed (read as empty) or forbidden (not synced). */
  unavailableKinds(): UnavailableKind[] {
    const out: UnavailableKind[] = [];
    for (const k of this.kube?.kinds() ?? []) {
      if (k.phase === 'not-installed') {
        const message = `${notInstalledMessage(k.kind, k.resource)}: read as empty`;
        out.push({ kind: k.kind, reason: 'not_installed', message });
      } else if (k.phase === 'forbidden') {
        out.push({
          kind: k.kind,
          reason: 'forbidden',
          message: forbiddenMessage(k.verb ?? 'list', k.resource),
        });
      }
    }
    return out;
  }

  /** A source knows only part of its content right now (a file of the directory never read well). */
  get partial(): boolean {
    return this.dir?.partial ?? false;
  }

  /** Readiness detail: which source has not synced yet (the forbidden kinds with the RBAC rule they need). */
  pending(): string[] {
    const out: string[] = [];
    if (this.dir && !this.dir.synced) out.push('directory');
    if (this.kube && !this.kube.synced) {
      const forbidden = this.unavailableKinds().filter((k) => k.reason === 'forbidden');
      const why = forbidden.map(describeUnavailable).join('; ');
      out.push(why === '' ? 'kubernetes' : `kubernetes: ${why}`);
    }
    if (this.mcp && !this.mcp.synced) out.push('istiod (MCP)');
    return out;
  }

  /** Starts every source (the directory is read synchronously here). */
  async start(): Promise<void> {
    this.dir?.start();
    this.mcp?.start();
    await this.kube?.start();
  }

  /** Resolves once every source synced (stays pending while one never does). */
  async whenSynced(): Promise<void> {
    await Promise.all([this.kube?.whenSynced(), this.mcp?.whenSynced()]);
    this.log.debug('every config source synced');
  }

  async stop(): Promise<void> {
    await Promise.all([this.dir?.stop(), this.mcp?.stop(), this.kube?.stop()]);
  }
}
