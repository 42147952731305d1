/**
 * API discovery as the Kubernetes clients do it: `GET /apis/<group>/<version>` (`/api/v1` for the core group)
 * answers the resources served there. A 404 means nothing of that group/version is served (no CRD of it is
 * installed); a document without the plural means that resource is not served. Discovery needs no RBAC grant
 * beyond the `system:discovery` role every authenticated user has.
 * https://kubernetes.io/docs/concepts/overview/kubernetes-api/#discovery-api
 */
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { statusCodeOf } from './errors.ts';

export interface ResourceId {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Lower-case plural, e.g. `metarouters`. */
  readonly plural: string;
}

/** Asks the API server which resources it serves. */
export interface ResourceDiscovery {
  /** True when served, false when not (404 or absent from the document); rejects on any other failure. */
  served(r: ResourceId): Promise<boolean>;
}

/**
 * How the API server serves a resource at one group/version, as its CRD says (and not as ours does: Aeraki's Helm
 * chart serves ApplicationProtocol namespaced, ours and Aeraki's k8s/crd.yaml cluster-scoped). From the
 * APIResourceList: `namespaced` of the resource's entry, and `status` when `<plural>/status` is listed (the CRD
 * declares `subresources.status` for that version).
 */
export interface ServedResource {
  readonly namespaced: boolean;
  readonly status: boolean;
}

/** Asks the API server how it serves a resource (the status writer's port; tests inject one). */
export interface ResourceShapes {
  /** The resource at r.group/r.version; undefined when not served there; rejects on any other failure. */
  describe(r: ResourceId): Promise<ServedResource | undefined>;
}

/** `metarouters.metaprotocol.aeraki.io`, or `services` for the core group: the name of a CRD and of RBAC messages. */
export function qualifiedResource(r: Pick<ResourceId, 'group' | 'plural'>): string {
  return r.group === '' ? r.plural : `${r.plural}.${r.group}`;
}

/**
 * Contract: concurrent questions about one group/version share one request (kinds of one group ask together);
 * nothing is cached beyond the request in flight, so every round of rediscovery asks the server again.
 */
export class ApiDiscovery implements ResourceDiscovery, ResourceShapes {
  private readonly kc: KubeConfig;
  private readonly inFlight = new Map<string, Promise<ReadonlyMap<string, ServedResource> | undefined>>();

  constructor(kc: KubeConfig) {
    this.kc = kc;
  }

  async served(r: ResourceId): Promise<boolean> {
    const names = await this.resources(r.group, r.version);
    return names !== undefined && names.has(r.plural);
  }

  async describe(r: ResourceId): Promise<ServedResource | undefined> {
    return (await this.resources(r.group, r.version))?.get(r.plural);
  }

  /** The resources served in group/version, by plural; undefined when the group/version is not served (404). */
  resources(group: string, version: string): Promise<ReadonlyMap<string, ServedResource> | undefined> {
    const key = `${group}/${version}`;
    let p = this.inFlight.get(key);
    if (!p) {
      p = this.fetch(group, version).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, p);
    }
    return p;
  }

  private async fetch(
    group: string,
    version: string,
  ): Promise<ReadonlyMap<string, ServedResource> | undefined> {
    try {
      const list =
        group === ''
          ? await this.kc.makeApiClient(CoreV1Api).getAPIResources()
          : await this.kc.makeApiClient(CustomObjectsApi).getAPIResources({ group, version });
      return servedResources(list.resources);
    } catch (err) {
      if (statusCodeOf(err) === 404) return undefined;
      throw err;
    }
  }
}

/** The entries of an APIResourceList by plural; a subresource (`<plural>/status`) marks its resource. */
export function servedResources(
  entries: readonly { readonly name: string; readonly namespaced: boolean }[],
): ReadonlyMap<string, ServedResource> {
  const names = new Set(entries.map((e) => e.name));
  const out = new Map<string, ServedResource>();
  for (const e of entries) {
    if (e.name.includes('/')) continue;
    out.set(e.name, { namespaced: e.namespaced, status: names.has(`${e.name}/status`) });
  }
  return out;
}
