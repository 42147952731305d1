/**
 * The Kubernetes API as a config source: with `--config-source kube` everything, Kubernetes Services included
 * (converted into ServiceEntries as istiod converts them); with `mcp` only MetaRouter, ApplicationProtocol, the
 * plugins' kinds and the mesh ConfigMap (istiod sends the rest, Services' ServiceEntries included).
 * `synced` turns false again only while a kind is forbidden by RBAC (a kind whose CRD is not installed is empty,
 * and synced).
 */
import { KubeSource } from '../controller/kube/sources.ts';
import { forbiddenMessage, notInstalledMessage } from '../kit/kube/kind-informer.ts';
import { describeUnavailable, type ConfigSource, type UnavailableKind } from '../model/config-source.ts';
import type { SourceContext } from './source-context.ts';

export class KubeConfigSource implements ConfigSource {
  readonly name = 'kubernetes';
  readonly partial = false;
  private readonly kube: KubeSource;

  /** `istio`: read the Istio kinds and the Services from the API too (`--config-source kube`). */
  constructor(c: SourceContext, istio: boolean) {
    if (!c.kc) throw new Error(`--config-source ${c.source.kind} needs the Kubernetes API`);
    const { rootNamespace, clusterDomain, revision, istioApiVersion } = c.mesh;
    this.kube = new KubeSource({
      kc: c.kc,
      ...(c.informers ? { informers: c.informers } : {}),
      store: c.store,
      kinds: c.store.kinds,
      rootNamespace,
      istio: istio ? istioApiVersion : false,
      services: istio,
      // Both modes: over MCP, istiod's synthetic ServiceEntries carry no targetPort (D16).
      endpointPorts: c.store,
      // Ambient inputs: Namespaces in both modes (MCP serves none), Gateway API kinds only without MCP.
      ...(c.ambient === true ? { ambient: { target: c.store, gateways: istio } } : {}),
      clusterDomain,
      revision,
      secretRefreshMs: c.source.secretRefreshMs,
      ...(c.backoff ? { backoff: c.backoff } : {}),
      ...(c.discovery ? { discovery: c.discovery } : {}),
      ...(c.onKindChange ? { onKindChange: c.onKindChange } : {}),
      logger: c.logger,
    });
  }

  start(): Promise<void> {
    return this.kube.start();
  }

  stop(): Promise<void> {
    return this.kube.stop();
  }

  get synced(): boolean {
    return this.kube.synced;
  }

  whenSynced(): Promise<void> {
    return this.kube.whenSynced();
  }

  /** `kubernetes`, with the forbidden kinds and the RBAC rule they need. */
  pending(): string {
    const forbidden = this.unavailableKinds().filter((k) => k.reason === 'forbidden');
    const why = forbidden.map(describeUnavailable).join('; ');
    return why === '' ? this.name : `${this.name}: ${why}`;
  }

  unavailableKinds(): UnavailableKind[] {
    const out: UnavailableKind[] = [];
    for (const k of this.kube.kinds()) {
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
}
