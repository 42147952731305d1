/**
 * Conflicts between Istio objects that are each valid alone, found over the whole config view: warnings on both
 * objects, never errors (the lookups still pick one object deterministically, D6). Part of configConflicts.
 *
 * - Two or more VirtualServices for one host, or DestinationRules for one host (hosts compared as the store
 *   normalises them, configForHost): the oldest is used; each other one gets a warning naming the one used, and
 *   the one used a warning naming each other one.
 * - A MetaProtocol server port of a Gateway claimed by two or more bound MetaRouters (gatewayPortClaims): the
 *   oldest is used for that port, the others are ignored there; a warning on each side.
 * - Two Gateways selecting the same workloads with MetaProtocol servers on one port (conflicts/gateway.ts).
 */
import { gatewaySelectorConflictsOf } from './gateway.ts';
import { gatewayEntryIndex, gatewayPortClaims } from './gateway-routers.ts';
import type { ConfigObject, DestinationRule, Gateway, VirtualService } from '../objects.ts';
import { selectsProtocol } from '../protocol.ts';
import { refOf, refString, warning, type ConfigIssue } from '../result.ts';
import type { ConfigView } from '../view.ts';

/** VirtualService, DestinationRule and Gateway conflicts, in that order (each in namespace/name order). */
export function hostConflicts(view: ConfigView): ConfigIssue[] {
  return [...virtualServiceConflicts(view), ...destinationRuleConflicts(view), ...gatewayConflicts(view)];
}

/** The pair of warnings of `loser` (at `loserPath`) and `winner` (at `winnerPath`), both claiming `what`. */
function pair(
  loser: ConfigObject,
  loserPath: string,
  winner: ConfigObject,
  winnerPath: string,
  what: string,
): ConfigIssue[] {
  return [
    warning(
      refOf(loser),
      loserPath,
      `${refString(refOf(winner))} is also for ${what} and is used (the oldest wins): this one is ignored for it`,
    ),
    warning(
      refOf(winner),
      winnerPath,
      `${refString(refOf(loser))} is also for ${what}: this one is used (the oldest wins), that one is ignored for it`,
    ),
  ];
}

function virtualServiceConflicts(view: ConfigView): ConfigIssue[] {
  return view.list('VirtualService').flatMap((vs) => virtualServiceConflictsOf(view, vs));
}

/** The conflict warnings of one VirtualService's hosts (both sides, when it is the one that lost). */
export function virtualServiceConflictsOf(view: ConfigView, vs: VirtualService): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  vs.spec.hosts.forEach((host, i) => {
    const winner = view.configForHost(host, vs.metadata.namespace).virtualService ?? vs;
    if (winner !== vs)
      out.push(...pair(vs, `spec.hosts[${i}]`, winner, 'spec.hosts', `host ${JSON.stringify(host)}`));
  });
  return out;
}

function destinationRuleConflicts(view: ConfigView): ConfigIssue[] {
  return view.list('DestinationRule').flatMap((dr) => destinationRuleConflictsOf(view, dr));
}

/** The conflict warnings of one DestinationRule's host (both sides, when it is the one that lost). */
export function destinationRuleConflictsOf(view: ConfigView, dr: DestinationRule): ConfigIssue[] {
  const host = dr.spec.host;
  if (host === '') return [];
  const winner = view.configForHost(host, dr.metadata.namespace).destinationRule ?? dr;
  return winner !== dr ? pair(dr, 'spec.host', winner, 'spec.host', `host ${JSON.stringify(host)}`) : [];
}

function gatewayConflicts(view: ConfigView): ConfigIssue[] {
  return view.gateways().flatMap((gw) => gatewayConflictsOf(view, gw));
}

/** The conflict warnings of the MetaProtocol server ports of one Gateway. */
export function gatewayPortConflictsOf(view: ConfigView, gw: Gateway): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const ports = new Set<number>();
  for (const server of gw.spec.servers) {
    const port = server.port.number;
    if (!selectsProtocol(server.port.name, 'metaprotocol') || ports.has(port)) continue;
    ports.add(port);
    const [winner, ...others] = gatewayPortClaims(view, gw, port);
    if (winner === undefined) continue;
    const what = `port ${port} of ${refString(refOf(gw))} (one gateway filter per port)`;
    const winnerPath = `spec.gateways[${gatewayEntryIndex(winner, gw)}]`;
    for (const mr of others) {
      out.push(...pair(mr, `spec.gateways[${gatewayEntryIndex(mr, gw)}]`, winner, winnerPath, what));
    }
  }
  return out;
}

/** The warnings on one Gateway: ports claimed by a MetaRouter twice, then Gateways selecting the same workloads. */
export function gatewayConflictsOf(view: ConfigView, gw: Gateway): ConfigIssue[] {
  return [...gatewayPortConflictsOf(view, gw), ...gatewaySelectorConflictsOf(view, gw)];
}
