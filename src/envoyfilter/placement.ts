/**
 * Placement of sidecar EnvoyFilters (spec aeraki-core.md 6.5) and the metadata every generated object carries:
 * sanitised name (D7), `manager: Aeraki` label and the source annotation.
 */
import { MANAGED_LABELS, SOURCE_ANNOTATION } from '../model/constants.ts';
import type { FilterDraft } from '../model/generator.ts';
import type { EnvoyFilterObject, MetaRouter, OutputObject, ServiceEntry } from '../model/objects.ts';
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

/** The annotations of every object generated for `source`: one frozen object, shared by all of them. */
export function sourceAnnotations(source: string): Readonly<Record<string, string>> {
  return Object.freeze({ [SOURCE_ANNOTATION]: source });
}

/**
 * A sidecar draft placed in `namespace` as a complete EnvoyFilter. Labels and `annotations` (from
 * sourceAnnotations) are shared, frozen, by every filter of the source: generation output is never mutated.
 */
export function placeDraft(
  draft: FilterDraft,
  namespace: string,
  annotations: Readonly<Record<string, string>>,
): EnvoyFilterObject {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'EnvoyFilter',
    metadata: { name: sanitizeObjectName(draft.name), namespace, labels: MANAGED_LABELS, annotations },
    spec: draft.spec,
  };
}

/** A generator-built object (gateway mode) with the name sanitised, labels exactly
 * `{manager: Aeraki}` (spec 6.6) and the source annotation set. */
export function stampObject(obj: OutputObject, source: string): OutputObject {
  const metadata = {
    ...obj.metadata,
    name: sanitizeObjectName(obj.metadata.name),
    labels: { ...MANAGED_LABELS },
    annotations: { ...obj.metadata.annotations, [SOURCE_ANNOTATION]: source },
  };
  return { ...obj, metadata };
}
