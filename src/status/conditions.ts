/**
 * The desired conditions of one Aeraki object (pure):
 * - `Accepted`: False (reason `Invalid`) when the object is rejected or generation found errors in it, the message
 *   naming each field (`spec.routes[0].match: ...`); True with reason `AdmissionWouldRefuse` when it breaks a rule
 *   of admission hygiene (result.ts hygiene: the webhook and `aeraki validate` refuse it, the controller renders it
 *   as Aeraki's controller does), `AcceptedWithWarnings` (message: the warnings) or `Accepted` otherwise. Accepted
 *   stays True for such an object because it is in effect (what analyzers such as IST0171 read `Accepted` for); the
 *   reason says that admission would refuse it;
 * - `Programmed` (MetaRouters only): True when its routes are served (it is the MetaRouter used for the first host
 *   of a ServiceEntry with a MetaProtocol port) and, with the proxies' answers at hand (RouteAcks), every connected
 *   proxy subscribed to them acknowledged the version built from the MetaRouter's current generation (the count
 *   in the message; "no proxy subscribed" without any); Unknown with `Pending` while the routes do not carry that
 *   generation yet or some proxy has not answered (the count and when the oldest was sent: a time, not an age, so
 *   that the status stays put while nothing changes); False with
 *   `ProxyRejected` when a proxy rejected them (how many, the first one and its error detail, cut); False with `Held` (rejected, its last valid version still
 *   served), `Invalid` (rejected with no valid version: none of its routes is served, its hosts get the default
 *   route; the message names the Gateways it holds), `Conflict`
 *   (another MetaRouter for its host is used),
 *   `NoServiceEntry` or `NoMetaProtocolPort`; Unknown with `Pending` while the store has not read it.
 */
import type { ConfigView } from '../model/view.ts';
import type { MetaRouter } from '../model/objects.ts';
import { selectsProtocol } from '../model/protocol.ts';
import {
  admissionOnly,
  refOf,
  refString,
  severityOf,
  type ConfigIssue,
  type ObjectRef,
} from '../model/result.ts';
import type { RouteAcks } from '../model/route-acks.ts';
import type { ConditionStatus } from './types.ts';

/** A condition without its transition time and generation (the planner adds them). */
export interface DesiredCondition {
  readonly type: 'Accepted' | 'Programmed';
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
}

/** metav1.Condition's message limit. */
const MAX_MESSAGE = 32768;

export function refKey(ref: ObjectRef): string {
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** `path: message` of each issue, joined by `; `, cut to the Condition limit. */
export function issuesMessage(issues: readonly ConfigIssue[]): string {
  const text = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 3)}...` : text;
}

export function acceptedCondition(
  rejected: readonly ConfigIssue[] | undefined,
  issues: readonly ConfigIssue[],
): DesiredCondition {
  const errors = [...(rejected ?? []), ...issues].filter((i) => severityOf(i) === 'error');
  if (rejected !== undefined || errors.length > 0) {
    return { type: 'Accepted', status: 'False', reason: 'Invalid', message: issuesMessage(errors) };
  }
  const warnings = issues.filter((i) => severityOf(i) === 'warning');
  if (warnings.some(admissionOnly)) {
    return {
      type: 'Accepted',
      status: 'True',
      reason: 'AdmissionWouldRefuse',
      message: `admission would refuse it; rendered as Aeraki's controller renders it: ${issuesMessage(warnings)}`,
    };
  }
  if (warnings.length > 0) {
    return {
      type: 'Accepted',
      status: 'True',
      reason: 'AcceptedWithWarnings',
      message: issuesMessage(warnings),
    };
  }
  return { type: 'Accepted', status: 'True', reason: 'Accepted', message: '' };
}

/** Which MetaRouter serves routes: for each used MetaRouter, whether its ServiceEntry has a MetaProtocol port. */
export function servedMetaRouters(view: ConfigView): Map<MetaRouter, boolean> {
  const out = new Map<MetaRouter, boolean>();
  for (const se of view.serviceEntries()) {
    const host = se.spec.hosts[0];
    const mr = host ? view.configForHost(host, se.metadata.namespace).metaRouter : undefined;
    if (!mr) continue;
    const meta = se.spec.ports.some((p) => selectsProtocol(p.name, 'metaprotocol'));
    out.set(mr, (out.get(mr) ?? false) || meta);
  }
  return out;
}

function programmed(status: ConditionStatus, reason: string, message: string): DesiredCondition {
  return { type: 'Programmed', status, reason, message };
}

/** Error details in a condition message or an Event note are cut to this many characters. */
export const MAX_DETAIL = 512;

/** RFC 3339 to the second, as metav1 times. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** Where the proxies stand on the routes of one MetaRouter (over every route built from it). */
export interface ProxyStanding {
  /** The routes built from it (RouteAcks.routesOf); empty when none is recorded yet. */
  readonly routes: readonly string[];
  /** The generation the routes carry when one of them carries another than `generation` (not rebuilt yet). */
  readonly staleGeneration?: number;
  /** Proxy subscriptions: a proxy subscribed to two of the routes counts twice. */
  readonly subscribed: number;
  readonly acked: number;
  readonly pending: number;
  /** ms since the epoch; undefined without pending proxies. */
  readonly oldestPendingAt?: number;
  readonly rejected: number;
  readonly firstRejection?: {
    readonly route: string;
    readonly proxy: string;
    readonly version: string;
    readonly detail: string;
  };
}

/** The proxies' answers to the routes built from the MetaRouter `ref`, whose current generation is `generation`. */
export function proxyStanding(
  ref: ObjectRef,
  acks: RouteAcks,
  generation: number | undefined,
): ProxyStanding {
  const origins = acks.routesOf(ref.namespace, ref.name);
  let subscribed = 0;
  let acked = 0;
  let pending = 0;
  let oldestPendingAt: number | undefined;
  let rejected = 0;
  let staleGeneration: number | undefined;
  let firstRejection: ProxyStanding['firstRejection'];
  for (const o of origins) {
    if (generation !== undefined && o.generation !== undefined && o.generation !== generation) {
      staleGeneration ??= o.generation;
    }
    const s = acks.summary(o.name);
    if (!s) continue;
    subscribed += s.subscribed;
    acked += s.acked;
    pending += s.pending;
    rejected += s.rejected;
    if (
      s.oldestPendingAt !== undefined &&
      (oldestPendingAt === undefined || s.oldestPendingAt < oldestPendingAt)
    ) {
      oldestPendingAt = s.oldestPendingAt;
    }
    if (!firstRejection && s.firstRejection) firstRejection = { route: o.name, ...s.firstRejection };
  }
  return {
    routes: origins.map((o) => o.name),
    ...(staleGeneration !== undefined ? { staleGeneration } : {}),
    ...{ subscribed, acked, pending, rejected },
    ...(oldestPendingAt !== undefined ? { oldestPendingAt } : {}),
    ...(firstRejection ? { firstRejection } : {}),
  };
}

const proxies = (n: number) => (n === 1 ? '1 proxy' : `${n} proxies`);

/** The note of the ProxyRejected Event, and what part of the condition message says about the first rejection. */
export function rejectionNote(first: NonNullable<ProxyStanding['firstRejection']>): string {
  return (
    `proxy ${first.proxy} rejected version ${first.version} of route ${first.route}: ` +
    cut(first.detail, MAX_DETAIL)
  );
}

/** Refines a True Programmed (routes served for `quoted`) by the proxies' answers. */
function programmedByProxies(
  quoted: string,
  generation: number | undefined,
  p: ProxyStanding,
): DesiredCondition {
  const served = `routes are served for host ${quoted}`;
  if (p.routes.length === 0) return programmed('True', 'Programmed', served);
  if (p.rejected > 0) {
    return programmed(
      'False',
      'ProxyRejected',
      `${proxies(p.rejected)} of ${p.subscribed} rejected the routes for host ${quoted}; ${rejectionNote(p.firstRejection!)}`,
    );
  }
  if (p.staleGeneration !== undefined) {
    return programmed(
      'Unknown',
      'Pending',
      `the routes for host ${quoted} are built from generation ${p.staleGeneration}, not yet ${generation}`,
    );
  }
  if (p.pending > 0) {
    return programmed(
      'Unknown',
      'Pending',
      `${proxies(p.pending)} of ${p.subscribed} ${p.pending === 1 ? 'has' : 'have'} not acknowledged the routes for host ${quoted} yet ` +
        `(the oldest sent at ${rfc3339(p.oldestPendingAt ?? 0)})`,
    );
  }
  if (p.subscribed === 0) return programmed('True', 'Programmed', `${served}; no proxy subscribed`);
  return programmed('True', 'Programmed', `${served}: acknowledged by ${proxies(p.acked)}`);
}

/**
 * `acks` (with the MetaRouter's current `generation`, the API server's) refines a True result by the proxies'
 * answers; without it the condition says whether the routes are served.
 */
export function programmedCondition(
  ref: ObjectRef,
  view: ConfigView,
  served: ReadonlyMap<MetaRouter, boolean>,
  rejected: boolean,
  holding: readonly ObjectRef[] = [],
  acks?: { readonly routeAcks: RouteAcks; readonly generation: number | undefined },
): DesiredCondition {
  const mr = view.get('MetaRouter', ref.namespace, ref.name);
  if (rejected) {
    const held =
      holding.length > 0
        ? `; held (their filters kept) until it is fixed: ${holding.map(refString).join(', ')}`
        : '';
    return mr
      ? programmed(
          'False',
          'Held',
          'the spec is invalid: the routes of its last valid version are still served',
        )
      : programmed(
          'False',
          'Invalid',
          'the spec is invalid and no valid version is known: none of its routes is served (its hosts get the ' +
            `default route, their ServiceEntries are rendered as they are)${held}`,
        );
  }
  if (!mr) return programmed('Unknown', 'Pending', 'not read by the controller yet');
  const host = mr.spec.hosts[0] ?? '';
  const quoted = JSON.stringify(host);
  const winner = view.configForHost(host, mr.metadata.namespace).metaRouter;
  if (winner && winner !== mr) {
    return programmed('False', 'Conflict', `${refString(refOf(winner))} is used for host ${quoted}`);
  }
  const meta = served.get(mr);
  if (meta === undefined) {
    return programmed('False', 'NoServiceEntry', `no ServiceEntry has ${quoted} as its first host`);
  }
  if (!meta) {
    return programmed(
      'False',
      'NoMetaProtocolPort',
      `the ServiceEntry of ${quoted} has no tcp-metaprotocol-* port`,
    );
  }
  if (!acks) return programmed('True', 'Programmed', `routes are served for host ${quoted}`);
  const generation = acks.generation ?? mr.metadata.generation;
  return programmedByProxies(quoted, generation, proxyStanding(ref, acks.routeAcks, generation));
}
