/**
 * Placement of sidecar EnvoyFilters (spec aeraki-core.md 6.5) and the metadata every generated object carries:
 * sanitised name (D7), `manager: Aeraki` label (spec 6.6) and the source annotation.
 */
import { MANAGED_LABELS, SOURCE_ANNOTATION } from '../model/constants.ts';
import type { FilterDraft, GatewayDraft } from '../model/generator.ts';
import type {
  EnvoyFilterObject,
  MetaRouter,
  OutputMeta,
  OutputObject,
  ServiceEntry,
} from '../model/objects.ts';
import { sanitizeObjectName } from '../util/names.ts';

/**
 * Namespaces that receive the filters of `se`: one per MetaRouter exportTo entry (`.` = the MetaRouter's
 * namespace, `*` = the root namespace, duplicates collapse, sorted); else the root namespace, or the
 * ServiceEntry's namespace with namespaceScope.
 */
export function placementNamespaces(
  se: ServiceEntry,
  metaRouter: MetaRouter | undefined,
  rootNamespace: string,
  namespaceScope: boolean,
): string[] {
  const exportTo = metaRouter?.spec.exportTo ?? [];
  if (metaRouter && exportTo.length > 0) {
    const set = new Set(
      exportTo.map((e) => (e === '.' ? metaRouter.metadata.namespace : e === '*' ? rootNamespace : e)),
    );
    return [...set].sort();
  }
  return [namespaceScope ? se.metadata.namespace : rootNamespace];
}

/** The metadata of a generated object: sanitised name, the managed labels, `source` in the source annotation. */
function outputMeta(name: string, namespace: string, source: string): OutputMeta {
  return {
    name: sanitizeObjectName(name),
    namespace,
    labels: MANAGED_LABELS,
    annotations: { [SOURCE_ANNOTATION]: source },
  };
}

/** A sidecar draft placed in `namespace` as a complete EnvoyFilter generated for `source` (a sourceKey). */
export function placeDraft(draft: FilterDraft, namespace: string, source: string): EnvoyFilterObject {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'EnvoyFilter',
    metadata: outputMeta(draft.name, namespace, source),
    spec: draft.spec,
  };
}

/** A gateway draft as a complete object generated for `source` (a sourceKey), in the draft's namespace. */
export function placeGatewayDraft(draft: GatewayDraft, source: string): OutputObject {
  const apiVersion = 'networking.istio.io/v1alpha3';
  const metadata = outputMeta(draft.name, draft.namespace, source);
  return draft.kind === 'EnvoyFilter'
    ? { apiVersion, kind: draft.kind, metadata, spec: draft.spec }
    : { apiVersion, kind: draft.kind, metadata, spec: draft.spec };
}
