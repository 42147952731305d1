/**
 * What the ambient codes share (AER0014-AER0017, AER0102): a service's waypoint binding as generation decides it
 * (model/ambient/binding.ts waypointOf, over AnalysisInput.ambient), and the advice they word by
 * `--waypoint-envoyfilters` (AnalysisOptions.waypointFilters): with it off, turn it on (and bind to a waypoint);
 * with it on, the waypoint the service needs. The waypoint suggested when the labels name none is `waypoint` of
 * the service's namespace, the name `istioctl waypoint apply` gives (istio/istio master @86c9f01f
 * pkg/config/constants/constants.go DefaultNamespaceWaypoint, istioctl/pkg/waypoint/waypoint.go:60).
 */
import { isAmbientNamespace, waypointOf, type WaypointBinding } from '../model/ambient/binding.ts';
import { USE_WAYPOINT_LABEL } from '../model/ambient/labels.ts';
import { OWN_WAYPOINT_CLASS } from '../model/ambient/own-waypoint.ts';
import type { ServiceEntry } from '../model/objects.ts';
import type { AnalysisInput } from './types.ts';

/** istioctl's default waypoint name. */
export const DEFAULT_WAYPOINT_NAME = 'waypoint';
export const WAYPOINT_FLAG = '--waypoint-envoyfilters';

/** The binding of `service`; undefined when no ambient inputs were read. */
export function bindingOf(input: AnalysisInput, service: ServiceEntry): WaypointBinding | undefined {
  const ambient = input.ambient;
  if (ambient === undefined) return undefined;
  const { namespace, name, labels } = service.metadata;
  return waypointOf(
    { kind: service.kind, namespace, name, labels },
    ambient.ambientNamespace(namespace),
    ambient.waypoints(),
  );
}

/** Whether the Namespace `name` was read and is labelled `istio.io/dataplane-mode: ambient`. */
export function inAmbientNamespace(input: AnalysisInput, name: string): boolean {
  return isAmbientNamespace(input.ambient?.ambientNamespace(name));
}

const WHY_UNUSED: Partial<Record<string, string>> = {
  'gateway-missing': 'no such Gateway',
  'gateway-not-ready': 'its Gateway has no status.addresses',
  'attachment-denied': "its Gateway's allowedRoutes do not admit namespace",
  'not-service-traffic': 'it does not take service traffic (istio.io/waypoint-for)',
};

/** Why an unbound service has no waypoint, one phrase. */
export function unboundText(binding: WaypointBinding, namespace: string): string {
  if (binding.bound) return '';
  if (binding.reason === 'opted-out') return `its ${USE_WAYPOINT_LABEL} is none`;
  if (binding.waypoint === undefined)
    return `neither it nor namespace ${namespace} has ${USE_WAYPOINT_LABEL}`;
  const why = WHY_UNUSED[binding.reason] ?? binding.reason;
  const suffix = binding.reason === 'attachment-denied' ? ` ${namespace}` : '';
  return `${USE_WAYPOINT_LABEL} names waypoint ${binding.waypoint.namespace}/${binding.waypoint.name}, which istiod does not use (${why}${suffix})`;
}

/** How to give the service a waypoint (the one its labels name, else `waypoint` of its namespace). */
function bindAdvice(input: AnalysisInput, service: ServiceEntry, binding: WaypointBinding): string {
  const ns = service.metadata.namespace;
  if (!binding.bound && binding.waypoint !== undefined && binding.reason !== 'opted-out') {
    const w = binding.waypoint;
    return `make waypoint ${w.namespace}/${w.name} usable (a Gateway of class istio-waypoint with status.addresses that admits namespace ${ns})`;
  }
  const exists = input.ambient?.waypoints().gateway(ns, DEFAULT_WAYPOINT_NAME) !== undefined;
  const create = exists ? '' : ` after creating it (istioctl waypoint apply -n ${ns})`;
  return `bind it to waypoint ${ns}/${DEFAULT_WAYPOINT_NAME}: label it or namespace ${ns} ${USE_WAYPOINT_LABEL}=${DEFAULT_WAYPOINT_NAME}${create}`;
}

/**
 * The advice for a service whose RPC no waypoint filter carries: with the flag off, turn it on (and bind to a
 * waypoint when unbound); with it on, the waypoint it needs. Empty when bound with the flag on.
 */
export function waypointAdvice(
  input: AnalysisInput,
  service: ServiceEntry,
  binding: WaypointBinding,
): string {
  const on = input.options.waypointFilters === true;
  if (binding.bound) {
    // Our own waypoint is programmed over our ADS whatever the flag (src/waypoint/).
    if (binding.gateway.className === OWN_WAYPOINT_CLASS) return '';
    const w = `${binding.waypoint.namespace}/${binding.waypoint.name}`;
    return on ? '' : `turn on ${WAYPOINT_FLAG} to write its filters for waypoint ${w}, to which it is bound`;
  }
  const bind = bindAdvice(input, service, binding);
  return on ? bind : `turn on ${WAYPOINT_FLAG} and ${bind}`;
}
