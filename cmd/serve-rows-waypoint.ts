/**
 * `aeraki serve` options of our own waypoint (class `aeraki-waypoint`; README, Ambient): the image its Deployments
 * run. The Gateway controller runs whenever serve writes to the Kubernetes API; it has no switch.
 */
import type { WaypointOptions } from '../src/app/options.ts';
import { DEFAULT_WAYPOINT_IMAGE } from '../src/model/ambient/own-waypoint.ts';
import { text } from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface WaypointFlags {
  readonly waypointImage: string;
}

export const WAYPOINT_ROWS = {
  waypointImage: {
    flag: '--waypoint-image <image>',
    env: 'AERAKI_WAYPOINT_IMAGE',
    default: DEFAULT_WAYPOINT_IMAGE,
    description:
      "the Envoy image aeraki-waypoint Gateways run (a Gateway's aeraki.io/proxy-image annotation overrides it)",
    parse: text,
  },
} satisfies RowTable<WaypointFlags>;

export function waypointOptions(f: WaypointFlags): WaypointOptions {
  return { image: f.waypointImage };
}
