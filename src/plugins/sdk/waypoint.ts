/** What plugins share for Istio waypoints (Generator.generateWaypoint). */
import type { WaypointContext } from '../../model/generator.ts';
import { refString, refOf, warning, type ConfigIssue } from '../../model/result.ts';

/**
 * The warning of a port that gets no waypoint filter because the waypoint's image lacks the filter: it names the
 * service, the port, the waypoint and the image it runs.
 */
export function waypointImageWarning(ctx: WaypointContext, filterName: string): ConfigIssue {
  const image = ctx.proxyImage ?? 'istio-proxy';
  const se = ctx.serviceEntry;
  const { namespace, name } = ctx.waypoint;
  const message =
    `${refString(refOf(se))} is bound to waypoint ${namespace}/${name}, whose image ${image} has no ${filterName}: ` +
    `no waypoint filter for port "${ctx.port.name}", its traffic stays plain TCP through the waypoint`;
  return warning(refOf(se), `spec.ports[${ctx.portIndex}].name`, message);
}
