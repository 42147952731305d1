import type { AmbientNamespace } from './binding.ts';
import type { WaypointIndex } from './waypoint.ts';
/** What generation reads of ambient mode (the ConfigStore implements it when ambient inputs are read). */
export interface AmbientView {
  /** The Namespace's name and labels; undefined when not read (or absent). */
  ambientNamespace(name: string): AmbientNamespace | undefined;
  /** The Gateway API Gateways and GatewayClasses read. */
  waypoints(): WaypointIndex;
}
