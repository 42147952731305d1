/**
 * What the RDS streams (stream-base.ts) and the waypoints' ADS streams (ads-stream-base.ts) share before their own
 * protocol rules: opening a stream (counted, its acknowledgements and its share of the name budgets) and the checks
 * every request passes first (decodable, field sizes within REQUEST_LIMITS, names within the budgets).
 */
import type { StreamAcks } from './acks.ts';
import { NameBudgets, type BudgetRefusal, type StreamBudget } from './budgets.ts';
import { DEFAULT_RDS_LIMITS, requestProblem } from './limits.ts';
import type { DeltaRequest, SotwRequest, StreamDeps } from './stream-types.ts';

/** Why a request ends its stream: INVALID_ARGUMENT naming `problem`, or RESOURCE_EXHAUSTED naming the budget. */
export type RequestRefusal = { readonly problem: string } | { readonly overBudget: BudgetRefusal };

/** What a stream holds from its opening to its close. */
export interface OpenedStream {
  /** The stream's resources in the acknowledgement tracker, when the server keeps one. */
  readonly acks: StreamAcks | undefined;
  /** The stream's share of the name budgets. */
  readonly budget: StreamBudget;
}

/** Counts a stream opened (and active) and opens what it holds. */
export function openStream(deps: Omit<StreamDeps, 'cache'>, protocol: 'sotw' | 'delta'): OpenedStream {
  deps.metrics.streamsOpened++;
  deps.metrics.streamsActive++;
  return {
    acks: deps.acks?.open(deps.peer, protocol),
    budget: deps.budget ?? new NameBudgets(DEFAULT_RDS_LIMITS).open(deps.peer, ''),
  };
}

/** The first refusal of `req`: undecodable or a field too large, else a name list over `budget`; none: undefined. */
export function requestRefusal(
  req: SotwRequest | DeltaRequest,
  budget: StreamBudget,
): RequestRefusal | undefined {
  const problem = req.invalid ?? requestProblem(req);
  if (problem !== undefined) return { problem };
  const overBudget =
    'resourceNames' in req
      ? budget.checkNames('resource_names', req.resourceNames)
      : (budget.checkNames('resource_names_subscribe', req.subscribe) ??
        budget.checkNames('resource_names_unsubscribe', req.unsubscribe) ??
        budget.checkNames('initial_resource_versions', Object.keys(req.initialResourceVersions)));
  return overBudget ? { overBudget } : undefined;
}
