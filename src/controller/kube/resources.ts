/** The Kubernetes resources the controller reads, and the choice between networking.istio.io v1 and v1alpha3. */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from '../../kit/kube/errors.ts';
import { ISTIO_GROUP } from '../../model/constants.ts';
import type { KindSpec } from '../../model/kinds.ts';
import type { ConfigKind } from '../../model/objects.ts';

export interface KindResource {
  readonly kind: ConfigKind;
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly clusterScoped: boolean;
}

export const AERAKI_GROUP = 'metaprotocol.aeraki.io';

/** The core's own CRDs (the plugins' come from their kinds: aerakiResources). */
export const CORE_AERAKI_RESOURCES: readonly KindResource[] = [
  {
    kind: 'MetaRouter',
    group: AERAKI_GROUP,
    version: 'v1alpha1',
    plural: 'metarouters',
    clusterScoped: false,
  },
  {
    kind: 'ApplicationProtocol',
    group: AERAKI_GROUP,
    version: 'v1alpha1',
    plural: 'applicationprotocols',
    clusterScoped: true,
  },
];

/** The resource of a plugin's kind. */
export function kindResource(k: KindSpec): KindResource {
  return { kind: k.kind, group: k.group, version: k.version, plural: k.plural, clusterScoped: !k.namespaced };
}

/** The controller's own CRDs: the core's (MetaRouter, ApplicationProtocol), then the plugins' `kinds`. */
export function aerakiResources(kinds: readonly KindSpec[]): KindResource[] {
  return [...CORE_AERAKI_RESOURCES, ...kinds.map(kindResource)];
}

export type IstioApiVersion = 'v1' | 'v1alpha3';

const ISTIO_PLURALS: readonly (readonly [ConfigKind, string])[] = [
  ['ServiceEntry', 'serviceentries'],
  ['VirtualService', 'virtualservices'],
  ['DestinationRule', 'destinationrules'],
  ['Gateway', 'gateways'],
];

export function istioResources(version: IstioApiVersion): KindResource[] {
  return ISTIO_PLURALS.map(([kind, plural]) => ({
    kind,
    group: ISTIO_GROUP,
    version,
    plural,
    clusterScoped: false,
  }));
}

/** Kubernetes Services (core group), read with `--config-source kube` and converted as istiod converts them. */
export const SERVICE_RESOURCE: KindResource = {
  kind: 'Service',
  group: '',
  version: 'v1',
  plural: 'services',
  clusterScoped: false,
};

/** Watch path of all objects of a resource, in all namespaces. */
export function resourcePath(r: Pick<KindResource, 'group' | 'version' | 'plural'>): string {
  return r.group === '' ? `/api/${r.version}/${r.plural}` : `/apis/${r.group}/${r.version}/${r.plural}`;
}

/**
 * networking.istio.io/v1 when the API server serves every Istio kind the controller reads in v1 (Istio 1.22+),
 * else v1alpha3 (served by every release). Discovery failures other than 404 are thrown (the caller retries).
 */
export async function detectIstioApiVersion(kc: KubeConfig): Promise<IstioApiVersion> {
  const api = kc.makeApiClient(CustomObjectsApi);
  try {
    const list = await api.getAPIResources({ group: ISTIO_GROUP, version: 'v1' });
    const served = new Set(list.resources.map((r) => r.name));
    return ISTIO_PLURALS.every(([, plural]) => served.has(plural)) ? 'v1' : 'v1alpha3';
  } catch (err) {
    if (isNotFound(err)) return 'v1alpha3';
    throw err;
  }
}
