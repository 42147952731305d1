/** The analyzers that need no cluster (they run offline and live), the catch-all of the config issues last. */
import type { Analyzer } from '../types.ts';
import { ambientWithoutWaypointAnalyzer } from './ambient-without-waypoint.ts';
import { configIssuesAnalyzer } from './config-issues.ts';
import { envoyFilterWaypointAnalyzer } from './envoyfilter-waypoint.ts';
import { generationAnalyzer } from './generation.ts';
import { hostProducedTwiceAnalyzer } from './host-produced-twice.ts';
import { noHandledPortsAnalyzer } from './no-handled-ports.ts';
import { portNameNearMissAnalyzer } from './port-near-miss.ts';
import { relativeWithoutPriorityAnalyzer } from './relative-without-priority.ts';
import { wellKnownRpcPortAnalyzer } from './rpc-port-unnamed.ts';
import { subsetNotDefinedAnalyzer } from './subset-not-defined.ts';
import { waypointImageAnalyzer } from './waypoint-image.ts';

/** The analyzers with codes of their own, whose issues the catch-all leaves out (Analyzer.covers). */
const SPECIFIC: readonly Analyzer[] = [
  portNameNearMissAnalyzer,
  wellKnownRpcPortAnalyzer,
  generationAnalyzer,
  subsetNotDefinedAnalyzer,
  hostProducedTwiceAnalyzer,
  noHandledPortsAnalyzer,
  relativeWithoutPriorityAnalyzer,
  ambientWithoutWaypointAnalyzer,
  envoyFilterWaypointAnalyzer,
  waypointImageAnalyzer,
];

export const OFFLINE_ANALYZERS: readonly Analyzer[] = [...SPECIFIC, configIssuesAnalyzer(SPECIFIC)];
