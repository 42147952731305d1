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

/** `metarouters.metaprotocol.aeraki.io`, or `services` for the core group: the name of a CRD and of RBAC messages. */
export function qualifiedResource(r: Pick<ResourceId, 'group' | 'plural'>): string {
  return r.group === '' ? r.plural : `${r.plural}.${r.group}`;
}

/**
 * Contract: concurrent questions about one group/version share one request (kinds of one group ask together);
 * nothing is cached beyond the request in flight, so every round of rediscovery asks the server again.
 */
export class ApiDiscovery implements ResourceDiscovery {
  private readonly kc: KubeConfig;
  private readonly inFlight = new Map<string, Promise<ReadonlySet<string> | undefined>>();

  constructor(kc: KubeConfig) {
    this.kc = kc;
  }

  async served(r: ResourceId): Promise<boolean> {
    const names = await this.resources(r.group, r.version);
    return names !== undefined && names.has(r.plural);
  }

  /** The plurals served in group/version; undefined when the group/version is not served (404). */
  resources(group: string, version: string): Promise<ReadonlySet<string> | undefined> {
    const key = `${group}/${version}`;
    let p = this.inFlight.get(key);
    if (!p) {
      p = this.fetch(group, version).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, p);
    }
    return p;
  }

  private async fetch(group: string, version: string): Promise<ReadonlySet<string> | undefined> {
    try {
      const list =
        group === ''
          ? await this.kc.makeApiClient(CoreV1Api).getAPIResources()
          : await this.kc.makeApiClient(CustomObjectsApi).getAPIResources({ group, version });
      return new Set(list.resources.map((x) => x.name));
    } catch (err) {
      if (statusCodeOf(err) === 404) return undefined;
      throw err;
    }
  }
}
