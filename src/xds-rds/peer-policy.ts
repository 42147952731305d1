import type { PeerRefusal } from '../util/peer-policy.ts';
import type { BudgetReason } from './budgets.ts';

/** Why an RDS client or stream was refused; the `reason` label of `aeraki_rds_refused_total`. */
export type RefusalReason =
  | PeerRefusal
  | BudgetReason
  | 'connection_limit'
  | 'idle_stream'
  | 'too_many_pings'
  | 'invalid_requests'
  | 'in_flight_budget'
  /** An ADS stream whose certificate is not the identity of the waypoint Gateway its `node.cluster` names. */
  | 'waypoint_identity';
