/**
 * What the native Dubbo generator reads beyond the common SidecarContext: the DubboAuthorizationPolicies that apply
 * to a ServiceEntry, those of its namespace and of the root namespace (D15), through its own lookup index.
 */
import { kindIndex } from '../../model/kinds.ts';
import type { ServiceEntry } from '../../model/objects.ts';
import type { DubboAuthorizationPolicy } from './types.ts';
import { compareByName } from '../../model/order.ts';
import type { ConfigView } from '../../model/view.ts';

/** The policies that apply to one ServiceEntry, ordered by namespace, then name; undefined when none apply. */
export type DubboContext = readonly DubboAuthorizationPolicy[] | undefined;

/** DubboAuthorizationPolicies by namespace (that namespace only, not the root namespace's), by name. */
export const POLICIES_BY_NAMESPACE = kindIndex({
  name: 'dubbo/DubboAuthorizationPolicy/namespace',
  kind: 'DubboAuthorizationPolicy',
  keysOf: (o) => [o.metadata.namespace],
});

/** The DubboAuthorizationPolicies of the namespace of `se` and of the root namespace (D15), by namespace, then name. */
export function resolveDubboContext(view: ConfigView, se: ServiceEntry): DubboContext {
  const policies = applyingPolicies(view, se.metadata.namespace);
  return policies.length > 0 ? policies : undefined;
}

function applyingPolicies(view: ConfigView, namespace: string): readonly DubboAuthorizationPolicy[] {
  const own = view.indexed(POLICIES_BY_NAMESPACE, namespace);
  if (namespace === view.rootNamespace) return own;
  const mesh = view.indexed(POLICIES_BY_NAMESPACE, view.rootNamespace);
  if (mesh.length === 0) return own;
  return [...own, ...mesh].sort(compareByName);
}
