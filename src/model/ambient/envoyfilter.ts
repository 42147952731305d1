/**
 * Whether an EnvoyFilter reaches a waypoint's proxies: WorkloadPolicyMatcher.ShouldAttachPolicy for a waypoint
 * (istio/istio pilot/pkg/model/policyattachment.go:123, release-1.30 @b9a2bbd2, master @86c9f01f the same) over
 * PushContext.getMatchedEnvoyFilters (push_context.go:2365: the root namespace's filters and the proxy's own
 * namespace's). docs/ambient-istio.md section 4.3.
 */
import { GATEWAY_API_GROUP, WAYPOINT_GATEWAY_CLASS } from './labels.ts';
import type { WaypointRef } from './binding.ts';

/** An EnvoyFilter `spec.targetRefs[]` entry (istio.type.v1beta1.PolicyTargetReference). */
export interface PolicyTargetRef {
  readonly group?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
}

export interface EnvoyFilterPlacement {
  readonly namespace: string;
  readonly targetRefs?: readonly PolicyTargetRef[];
}

/**
 * True when the EnvoyFilter applies to the waypoint of Gateway `waypoint`: a waypoint ignores every EnvoyFilter
 * without `targetRefs` (so `workloadSelector` never reaches it); a ref reaches it when it is
 * `{group: gateway.networking.k8s.io, kind: Gateway, name: <waypoint>}` from the waypoint's namespace (the ref's
 * namespace empty or that one), or `{group: gateway.networking.k8s.io, kind: GatewayClass, name: istio-waypoint}`
 * from the root namespace. Refs to a Service or ServiceEntry never match for EnvoyFilters (no services are given
 * to the matcher).
 */
export function reachesWaypoint(
  filter: EnvoyFilterPlacement,
  waypoint: WaypointRef,
  rootNamespace: string,
): boolean {
  const inRoot = filter.namespace === rootNamespace;
  if (!inRoot && filter.namespace !== waypoint.namespace) return false; // never looked at for this proxy
  for (const ref of filter.targetRefs ?? []) {
    if (ref.group !== GATEWAY_API_GROUP) continue; // config.CanonicalGroup: '' is `core`
    if (inRoot && ref.kind === 'GatewayClass' && ref.name === WAYPOINT_GATEWAY_CLASS) return true;
    if (filter.namespace !== waypoint.namespace) continue;
    if (ref.namespace !== undefined && ref.namespace !== '' && ref.namespace !== waypoint.namespace) continue;
    if (ref.kind === 'Gateway' && ref.name === waypoint.name) return true;
  }
  return false;
}
