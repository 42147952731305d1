// Ambient inputs (Namespaces, waypoint Gateways and GatewayClasses, as the ambient model holds them) as an in-memory
// AmbientView over indexWaypoints.
import type { AmbientNamespace } from '../../src/model/ambient/binding.ts';
import type { AmbientView } from '../../src/model/ambient/view.ts';
import {
  indexWaypoints,
  type WaypointGateway,
  type WaypointGatewayClass,
} from '../../src/model/ambient/waypoint.ts';

export interface AmbientInputs {
  readonly namespaces: AmbientNamespace[];
  readonly gateways: WaypointGateway[];
  readonly classes: WaypointGatewayClass[];
}

/** A small in-memory AmbientView (what the ConfigStore implements when it reads ambient inputs). */
export function ambientViewOf(inputs: AmbientInputs): AmbientView {
  const namespaces = new Map(inputs.namespaces.map((n) => [n.name, n]));
  const index = indexWaypoints(inputs.gateways, inputs.classes);
  return { ambientNamespace: (name) => namespaces.get(name), waypoints: () => index };
}
