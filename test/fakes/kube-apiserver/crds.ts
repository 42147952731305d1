// CustomResourceDefinitions: creating one (apiextensions.k8s.io/v1) serves its resource; deleting one deletes its
// objects (the real server's customresourcecleanup finalizer), ends the watches on it and stops serving it.
import { isObj } from './objects.ts';
import type { Registry } from './registry.ts';
import type { ObjectStore } from './store.ts';
import type { KubeObject, ResourceType } from './types.ts';
import type { WatchHub } from './watch.ts';

export const CRD_RESOURCE: ResourceType = {
  group: 'apiextensions.k8s.io',
  versions: ['v1'],
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  statusSubresource: true,
  deleteReturns: 'object',
};

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The resource type a CRD object defines (its served versions); undefined when it defines none. */
export function resourceTypeOfCrd(crd: KubeObject): ResourceType | undefined {
  const spec = isObj(crd['spec']) ? crd['spec'] : {};
  const names = isObj(spec['names']) ? spec['names'] : {};
  const versions = (Array.isArray(spec['versions']) ? spec['versions'] : []).filter(
    (v): v is Record<string, unknown> => isObj(v) && v['served'] !== false && typeof v['name'] === 'string',
  );
  const group = text(spec['group']);
  const plural = text(names['plural']);
  const kind = text(names['kind']);
  if (!group || !plural || !kind || versions.length === 0) return undefined;
  const rt: ResourceType = {
    group,
    versions: versions.map((v) => v['name'] as string),
    kind,
    plural,
    namespaced: spec['scope'] !== 'Cluster',
    statusSubresource: versions.some((v) => isObj(v['subresources']) && isObj(v['subresources']['status'])),
    deleteReturns: 'object',
  };
  const singular = text(names['singular']);
  if (singular) rt.singular = singular;
  if (Array.isArray(names['shortNames']))
    rt.shortNames = names['shortNames'].filter((s) => typeof s === 'string');
  return rt;
}

/** A minimal CRD object defining `rt` (schema: preserve unknown fields). */
export function crdOf(rt: ResourceType): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${rt.plural}.${rt.group}` },
    spec: {
      group: rt.group,
      scope: rt.namespaced ? 'Namespaced' : 'Cluster',
      names: {
        kind: rt.kind,
        plural: rt.plural,
        singular: rt.singular ?? rt.kind.toLowerCase(),
        ...(rt.shortNames ? { shortNames: rt.shortNames } : {}),
      },
      versions: rt.versions.map((name, i) => ({
        name,
        served: true,
        storage: i === rt.versions.length - 1,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        ...(rt.statusSubresource ? { subresources: { status: {} } } : {}),
      })),
    },
  };
}

/** Deletes every object of `rt` (with watch events), ends its watches and stops serving it. */
export function uninstall(registry: Registry, store: ObjectStore, hub: WatchHub, rt: ResourceType): void {
  for (const o of store.list(rt)) store.remove(rt, o.metadata.namespace, o.metadata.name ?? '');
  hub.closeWhere((w) => w.group === rt.group && w.plural === rt.plural);
  registry.unregister(rt.group, rt.plural);
}

/** Keeps the registry in step with the CRD objects stored (creates, updates and deletes). */
export function followCrds(registry: Registry, store: ObjectStore, hub: WatchHub): void {
  store.subscribe((rt, ev) => {
    if (rt.group !== CRD_RESOURCE.group || rt.plural !== CRD_RESOURCE.plural) return;
    const defined = resourceTypeOfCrd(ev.object);
    if (!defined) return;
    if (ev.type === 'DELETED') {
      const live = registry.find(defined.group, defined.plural);
      if (live) uninstall(registry, store, hub, live);
    } else registry.register(defined);
  });
}
