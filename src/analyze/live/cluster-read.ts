/**
 * `aeraki analyze` against a live cluster: reads, with the user's kubeconfig and list calls only (no watch, no
 * write, paged), the kinds it is given (src/app/analyze-cluster.ts passes what the controller reads: the core's
 * Istio kinds in the API version the cluster serves, the Aeraki CRDs and the plugins' kinds, Kubernetes Services)
 * and the mesh ConfigMap as raw objects for the analysis, and the facts the live analyzers need (../types.ts
 * ClusterFacts): Namespaces (labels), Pods (labels and the istio-proxy image only), EnvoyFilters (reduced to
 * EnvoyFilterFacts) and istiod's version.
 * Scope: `namespace` (`-n`) reads that namespace plus the root namespace (mesh-wide objects live there);
 * `allNamespaces` (`-A`) reads every namespace; neither: the kubeconfig context's namespace (else `default`), as
 * istioctl analyze does. A kind not served (404) or forbidden (403) is an entry of `unreadable`; the rest goes on.
 * The ambient inputs (issue 38): the Namespaces read for the facts, and Gateway API Gateways (in scope) and
 * GatewayClasses as raw objects (controller/kube/ambient.ts reads the same resources); a cluster without the
 * Gateway API CRDs has no waypoints, which is no gap (ListTarget.absentIsEmpty).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { ISTIO_GROUP, MANAGER_LABEL, MANAGER_VALUE } from '../../model/constants.ts';
import { envoyFilterFacts } from '../envoyfilter-facts.ts';
import type { ClusterFacts, EnvoyFilterFacts, PodFacts } from '../types.ts';
import { GATEWAY_API_GROUP } from '../../model/ambient/labels.ts';
import { istiodVersionOf } from './cluster-istiod.ts';
import { ClusterReader, type ListTarget, type Scope } from './cluster-reads.ts';

/** Which namespaces a live analysis reads. */
export interface ClusterScopeOptions {
  /** `-n`: one namespace (plus the root namespace). */
  readonly namespace?: string;
  /** `-A`: every namespace (wins over `namespace`). */
  readonly allNamespaces: boolean;
  readonly rootNamespace: string;
  /** Items per list page (default 500). */
  readonly pageSize?: number;
}

export interface ClusterRead {
  /** The objects the controller reads, as the API server answered them (apiVersion and kind set). */
  readonly raws: unknown[];
  readonly cluster: ClusterFacts;
}

const core = (kind: string, plural: string, namespaced = true): ListTarget => ({
  kind,
  group: '',
  version: 'v1',
  plural,
  namespaced,
});
const ENVOY_FILTERS: ListTarget = {
  kind: 'EnvoyFilter',
  group: ISTIO_GROUP,
  version: 'v1alpha3',
  plural: 'envoyfilters',
  namespaced: true,
};

/** Gateway API `v1`, as istiod reads it (istio/istio pkg/config/schema/gvk/resources.gen.go @86c9f01f). */
const GATEWAY_API_KINDS: readonly ListTarget[] = [
  { kind: 'Gateway', group: GATEWAY_API_GROUP, version: 'v1', plural: 'gateways', namespaced: true },
  {
    kind: 'GatewayClass',
    group: GATEWAY_API_GROUP,
    version: 'v1',
    plural: 'gatewayclasses',
    namespaced: false,
  },
].map((t) => ({ ...t, absentIsEmpty: true }));

function scopeOf(o: ClusterScopeOptions, kc: KubeConfig): Scope {
  if (o.allNamespaces) return 'all';
  const ns = o.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
  return [...new Set([ns, o.rootNamespace])];
}

/** Reads `kinds` (in order) and the mesh ConfigMap as raw objects, then the cluster's facts. */
export async function readClusterObjects(
  kc: KubeConfig,
  o: ClusterScopeOptions,
  kinds: readonly ListTarget[],
): Promise<ClusterRead> {
  const scope = scopeOf(o, kc);
  const reader = new ClusterReader(kc, scope, o.pageSize);
  const raws: unknown[] = [];
  for (const t of [...kinds, ...GATEWAY_API_KINDS]) raws.push(...(await reader.list(t)));
  const mesh = { ...core('ConfigMap', 'configmaps'), fieldSelector: 'metadata.name=istio' };
  raws.push(...(await reader.list(mesh, [o.rootNamespace])));

  const namespaces = await readNamespaces(reader, scope);
  const pods = await reader.listReduced(core('Pod', 'pods'), podFacts);
  const envoyFilters = (await reader.listReduced(ENVOY_FILTERS, envoyFilterFacts))
    .filter((f): f is EnvoyFilterFacts => f !== undefined)
    .filter((f) => inScope(f, scope));
  const deployments = await reader.list(
    {
      kind: 'Deployment',
      group: 'apps',
      version: 'v1',
      plural: 'deployments',
      namespaced: true,
      labelSelector: 'app=istiod',
    },
    [o.rootNamespace],
  );
  const istiodVersion = istiodVersionOf(deployments);
  const cluster: ClusterFacts = {
    namespaces,
    pods,
    envoyFilters,
    unreadable: reader.unreadable,
    ...(istiodVersion !== undefined ? { istiodVersion } : {}),
  };
  return { raws, cluster };
}

async function readNamespaces(reader: ClusterReader, scope: Scope): Promise<ClusterFacts['namespaces']> {
  const t = core('Namespace', 'namespaces', false);
  const items = scope === 'all' ? await reader.list(t) : [];
  // One namespace at a time (a list by name: list calls only), in scope order.
  if (scope !== 'all')
    for (const n of scope) items.push(...(await reader.list({ ...t, fieldSelector: `metadata.name=${n}` })));
  return items.map((n) => {
    const md = n['metadata'] as { name?: string; labels?: Record<string, string> } | undefined;
    return { name: md?.name ?? '', labels: { ...md?.labels } };
  });
}

/**
 * With `-n`, this controller's EnvoyFilters in the root namespace for sources of other namespaces are left out:
 * those sources were not read, so the filters would look orphaned.
 */
function inScope(f: EnvoyFilterFacts, scope: Scope): boolean {
  if (scope === 'all' || f.labels[MANAGER_LABEL] !== MANAGER_VALUE || f.source === undefined) return true;
  const sourceNamespace = f.source.split('/')[1];
  return sourceNamespace !== undefined && scope.includes(sourceNamespace);
}

interface PodLike {
  metadata?: { namespace?: string; name?: string; labels?: Record<string, string> };
  spec?: {
    containers?: { name?: string; image?: string }[];
    initContainers?: { name?: string; image?: string }[];
  };
}

/** Only the fields the analyzers use. istio-proxy is a container, or an init container with native sidecars. */
function podFacts(raw: Record<string, unknown>): PodFacts {
  const p = raw as PodLike;
  const containers = [...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? [])];
  const proxyImage = containers.find((c) => c.name === 'istio-proxy')?.image;
  return {
    namespace: p.metadata?.namespace ?? '',
    name: p.metadata?.name ?? '',
    labels: { ...p.metadata?.labels },
    ...(proxyImage !== undefined ? { proxyImage } : {}),
  };
}
