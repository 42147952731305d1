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

/** The annotations of the objects generated for `source` (a sourceKey): the source annotation. */
export function sourceAnnotations(source: string): Readonly<Record<string, string>> {
  return { [SOURCE_ANNOTATION]: source };
}

/** The metadata of a generated object: sanitised name, the managed labels and the source's annotations. */
function outputMeta(
  name: string,
  namespace: string,
  annotations: Readonly<Record<string, string>>,
): OutputMeta {
  return { name: sanitizeObjectName(name), namespace, labels: MANAGED_LABELS, annotations };
}

/** A sidecar draft placed in `namespace` as a complete EnvoyFilter, with its source's annotations. */
export function placeDraft(
  draft: FilterDraft,
  namespace: string,
  annotations: Readonly<Record<string, string>>,
): EnvoyFilterObject {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'EnvoyFilter',
    metadata: outputMeta(draft.name, namespace, annotations),
    spec: draft.spec,
  };
}

/** A gateway draft as a complete object in the draft's namespace, with its source's annotations. */
export function placeGatewayDraft(
  draft: GatewayDraft,
  annotations: Readonly<Record<string, string>>,
): OutputObject {
  const apiVersion = 'networking.istio.io/v1alpha3';
  const metadata = outputMeta(draft.name, draft.namespace, annotations);
  return draft.kind === 'EnvoyFilter'
    ? { apiVersion, kind: draft.kind, metadata, spec: draft.spec }
    : { apiVersion, kind: draft.kind, metadata, spec: draft.spec };
}
