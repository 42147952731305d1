/**
 * Dependency keys of the ambient inputs (Namespaces, Gateway API Gateways, GatewayClasses; model/ambient/view.ts):
 * what a computation that binds services to waypoints (model/ambient/binding.ts waypointOf) read, so that a change
 * to one of those objects recomputes exactly the units that looked it up. Shared by the waypoint EnvoyFilters
 * (envoyfilter/waypoint.ts) and our own waypoint's translation (waypoint/).
 */
import type { AmbientView } from '../../model/ambient/view.ts';
import type { WaypointIndex } from '../../model/ambient/waypoint.ts';
import { objectDepKey } from './dependencies.ts';

/** The event kinds (ConfigEvent.kind) of the ambient inputs, and the dependency keys lookups file them under. */
export const NAMESPACE_KIND = 'Namespace';
export const KUBERNETES_GATEWAY_KIND = 'KubernetesGateway';
export const GATEWAY_CLASS_KIND = 'GatewayClass';

/**
 * An AmbientView over `ambient` that adds to `deps` the key of every lookup made through it: `obj:Namespace//<name>`,
 * `obj:KubernetesGateway/<ns>/<name>` and `obj:GatewayClass//<name>` (cluster-scoped objects have namespace ''),
 * and `kind:KubernetesGateway` for the list of Gateways: the keys the store's events for those kinds carry
 * (kit/incremental/dependencies.ts eventKeys).
 */
export function recordingAmbientView(ambient: AmbientView, deps: Set<string>): AmbientView {
  return {
    ambientNamespace: (name) => (
      deps.add(objectDepKey(NAMESPACE_KIND, '', name)),
      ambient.ambientNamespace(name)
    ),
    waypoints: (): WaypointIndex => {
      const index = ambient.waypoints();
      return {
        gateway: (ns, name) => (
          deps.add(objectDepKey(KUBERNETES_GATEWAY_KIND, ns, name)),
          index.gateway(ns, name)
        ),
        gatewayClass: (name) => (
          deps.add(objectDepKey(GATEWAY_CLASS_KIND, '', name)),
          index.gatewayClass(name)
        ),
        gateways: () => (deps.add(`kind:${KUBERNETES_GATEWAY_KIND}`), index.gateways()),
      };
    },
  };
}
