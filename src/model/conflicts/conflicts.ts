/**
 * Every conflict warning of a config view (objects each valid alone that claim the same thing): MetaProtocol
 * objects (conflicts/metarouter.ts), then VirtualServices, DestinationRules and Gateway ports (conflicts/host.ts).
 * Run by generateAll, the route builder and the status planner, so all three report the same warnings.
 */
import { hostConflicts } from './host.ts';
import { metaProtocolConflicts } from './metarouter.ts';
import type { ConfigIssue } from '../result.ts';
import type { ConfigView } from '../view.ts';

export function configConflicts(view: ConfigView): ConfigIssue[] {
  return [...metaProtocolConflicts(view), ...hostConflicts(view)];
}
