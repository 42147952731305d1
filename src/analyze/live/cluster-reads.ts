/**
 * The reads of `aeraki analyze` against a cluster (cluster-read.ts): list calls only, every page (`limit`/`continue`),
 * in one namespace after another or across all namespaces. A resource that is not served
 * (404: its CRD is not installed) or not allowed (403) is not an error: it becomes a line of
 * ClusterFacts.unreadable (kind and reason), and what could be read is returned. Any other failure rejects.
 */
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { qualifiedResource, type ResourceId } from '../../kit/kube/discovery.ts';
import { apiStatusOf } from '../../kit/kube/errors.ts';
import { listAllPages } from '../../kit/kube/paged-list.ts';
import { notInstalledMessage } from '../../kit/kube/kind-informer.ts';
import type { UnreadableFacts } from '../types.ts';
import { isPlainObject } from '../../util/json.ts';

/** Which namespaces are read: every one, or these. */
export type Scope = 'all' | readonly string[];

export interface ListTarget extends ResourceId {
  /** The kind named in ClusterFacts.unreadable and given to items that lack it (typed core lists). */
  readonly kind: string;
  readonly namespaced: boolean;
  readonly labelSelector?: string;
  /** `metadata.name=<name>`: one object by name, still a list call. */
  readonly fieldSelector?: string;
  /**
   * A resource not served (404) is read as empty without a line in `unreadable`: its absence is a fact, not a
   * gap (Gateway API kinds: a cluster without their CRDs has no waypoints).
   */
  readonly absentIsEmpty?: boolean;
}

/** One page of a list: a namespace (undefined: all namespaces) and the continue token. */
type PageFetch = (namespace: string | undefined, next: string | undefined) => Promise<unknown>;

export class ClusterReader {
  /** What could not be read, in the order met, each once. */
  readonly unreadable: UnreadableFacts[] = [];
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;

  constructor(
    kc: KubeConfig,
    private readonly scope: Scope,
    private readonly pageSize = 500,
  ) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.core = kc.makeApiClient(CoreV1Api);
    this.apps = kc.makeApiClient(AppsV1Api);
  }

  /** Every object of `t` in scope (all of them for a cluster-scoped kind), with apiVersion and kind set. */
  list(t: ListTarget, scope: Scope = this.scope): Promise<Record<string, unknown>[]> {
    return this.listWith(t, scope, (item) => item);
  }

  /**
   * `reduce(object)` for every object of `t` in scope, applied page by page, so only what it keeps is held (a pod's
   * labels and proxy image, not the pod).
   */
  listReduced<T>(
    t: ListTarget,
    reduce: (item: Record<string, unknown>) => T,
    scope: Scope = this.scope,
  ): Promise<T[]> {
    return this.listWith(t, scope, reduce);
  }

  /** Records what could not be read, once. */
  private note(kind: string, reason: string): void {
    if (!this.unreadable.some((u) => u.kind === kind && u.reason === reason))
      this.unreadable.push({ kind, reason });
  }

  private async listWith<T>(
    t: ListTarget,
    scope: Scope,
    reduce: (item: Record<string, unknown>) => T,
  ): Promise<T[]> {
    const fetch = this.fetcherOf(t);
    const namespaces: readonly (string | undefined)[] =
      !t.namespaced || scope === 'all' ? [undefined] : scope;
    const out: T[] = [];
    const denied: string[] = [];
    for (const ns of namespaces) {
      try {
        const items = await listAllPages(async (next) => {
          const page = await fetch(ns, next);
          const list = isPlainObject(page) ? page : {};
          const raw = Array.isArray(list['items']) ? (list['items'] as unknown[]) : [];
          return { ...list, items: raw.map((item) => reduce(withTypeMeta(item, t))) };
        });
        out.push(...(items as T[]));
      } catch (err) {
        const status = apiStatusOf(err);
        if (status === 404) {
          if (t.absentIsEmpty === true) return out;
          this.note(t.kind, `${notInstalledMessage(t.kind, t)}: read as empty`);
          return out;
        }
        if (status !== 403) throw new Error(`list ${qualifiedResource(t)}`, { cause: err });
        denied.push(ns ?? '');
      }
    }
    if (denied.length > 0) {
      const where = denied.includes('') ? undefined : denied;
      this.note(t.kind, forbidden('list', t, where));
    }
    return out;
  }

  private fetcherOf(t: ListTarget): PageFetch {
    const paging = (next: string | undefined) => ({
      limit: this.pageSize,
      ...(next ? { _continue: next } : {}),
      ...(t.labelSelector ? { labelSelector: t.labelSelector } : {}),
      ...(t.fieldSelector ? { fieldSelector: t.fieldSelector } : {}),
    });
    if (t.group === 'apps' && t.plural === 'deployments') {
      return (ns, next) =>
        ns === undefined
          ? this.apps.listDeploymentForAllNamespaces(paging(next)).then(typedPage)
          : this.apps.listNamespacedDeployment({ namespace: ns, ...paging(next) }).then(typedPage);
    }
    if (t.group === '') return async (ns, next) => typedPage(await this.coreList(t.plural, ns, paging(next)));
    const r = { group: t.group, version: t.version, plural: t.plural };
    return (ns, next) =>
      ns === undefined
        ? this.custom.listClusterCustomObject({ ...r, ...paging(next) })
        : this.custom.listNamespacedCustomObject({ ...r, namespace: ns, ...paging(next) });
  }

  private coreList(
    plural: string,
    ns: string | undefined,
    p: { limit: number; _continue?: string; labelSelector?: string; fieldSelector?: string },
  ): Promise<{ items: unknown[]; metadata?: { _continue?: string } }> {
    switch (plural) {
      case 'services':
        return ns === undefined
          ? this.core.listServiceForAllNamespaces(p)
          : this.core.listNamespacedService({ namespace: ns, ...p });
      case 'pods':
        return ns === undefined
          ? this.core.listPodForAllNamespaces(p)
          : this.core.listNamespacedPod({ namespace: ns, ...p });
      case 'configmaps':
        return ns === undefined
          ? this.core.listConfigMapForAllNamespaces(p)
          : this.core.listNamespacedConfigMap({ namespace: ns, ...p });
      case 'namespaces':
        return this.core.listNamespace(p);
      default:
        throw new Error(`no list of core resource ${plural}`);
    }
  }
}

/** `forbidden: list pods in namespaces shop, istio-system (the user needs verb list on group "" (core) resource pods)`. */
function forbidden(verb: string, r: ListTarget, namespaces: readonly string[] | undefined): string {
  const group = r.group === '' ? '"" (core)' : r.group;
  const where = namespaces
    ? ` in namespace(s) ${namespaces.join(', ')}`
    : r.namespaced
      ? ' in all namespaces'
      : '';
  return `forbidden: ${verb} ${qualifiedResource(r)}${where} (the kubeconfig's user needs verb ${verb} on group ${group} resource ${r.plural}): not analysed`;
}

/** A typed list (V1PodList, ...) names its continue token `_continue`; listAllPages reads the wire's `continue`. */
function typedPage(list: { items: unknown[]; metadata?: { _continue?: string } }): unknown {
  return { items: list.items, metadata: { continue: list.metadata?._continue } };
}

/** Typed core lists give items without apiVersion/kind; the parser needs them. */
function withTypeMeta(item: unknown, t: ListTarget): Record<string, unknown> {
  const raw = isPlainObject(item) ? { ...item } : {};
  if (typeof raw['apiVersion'] !== 'string')
    raw['apiVersion'] = t.group === '' ? t.version : `${t.group}/${t.version}`;
  if (typeof raw['kind'] !== 'string') raw['kind'] = t.kind;
  return raw;
}
