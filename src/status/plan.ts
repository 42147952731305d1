/**
 * The pure status planner: from the store (a ConfigView), its rejected objects, the generation issues and the
 * Aeraki objects as the API server holds them, the status writes a run makes and the Events that describe the
 * current problems.
 *
 * Rules:
 * - every listed Aeraki object gets `Accepted` (and MetaRouters `Programmed`; conditions.ts), each condition and
 *   the status carrying the object's `metadata.generation` as `observedGeneration`; conditions of other types
 *   written by someone else are kept;
 * - `lastTransitionTime` is kept from the current condition while its `status` stays, else it is `now`;
 * - a status equal to the current one is not written, so an unchanged config costs no write (kit/diff.ts: the
 *   desired statuses against the targets' current ones);
 * - `Accepted` also weighs the rules of the object's valid version (model/validate/rules.ts), so one that breaks a rule of
 *   admission hygiene says that admission would refuse it;
 * - Events (one per object, reason and note): `Invalid` for each rejected object (any kind) and for each object
 *   with errors in the generation pass (any kind; one note per object: the Event is reported again only when
 *   the errors change), `Held` for a
 *   rejected object whose last valid version the store still serves and for each valid object held by an
 *   invalid one (model/held.ts), `Conflict` for each MetaRouter or ApplicationProtocol conflict warning,
 *   `ProxyRejected` for a MetaRouter whose routes a proxy rejects (keyed by the rejected route and version, so it
 *   is reported once per version whatever the count of proxies). The controller creates only those it has not
 *   reported yet.
 */
import { configConflicts } from '../model/conflicts/conflicts.ts';
import type { ConfigKind } from '../model/objects.ts';
import type { RejectedObject } from '../model/parse/objects.ts';
import { holdersOf, isHeldIssue } from '../model/held.ts';
import { issueLine, refOf, severityOf, type ConfigIssue, type ObjectRef } from '../model/result.ts';
import { ruleIssues } from '../model/validate/rules.ts';
import type { ConfigView } from '../model/view.ts';
import type { RouteAcks } from '../model/route-acks.ts';
import { stableStringify } from '../util/json.ts';
import { diffObjects } from '../kit/diff.ts';
import {
  acceptedCondition,
  issuesMessage,
  programmedCondition,
  proxyStanding,
  refKey,
  rejectionNote as routeRejectionNote,
  servedMetaRouters,
  type DesiredCondition,
} from './conditions.ts';
import type { ListenerRejection } from '../model/listener-rejections.ts';
import {
  rejectedMetaRouters,
  rejectedProgrammed,
  rejectionKey,
  rejectionNote,
  sourceRef,
} from './proxy-rejections.ts';
import type { Condition, EventReason, EventSpec, ObjectStatus, StatusPatch, StatusTarget } from './types.ts';

export interface StatusPlanInput {
  readonly view: ConfigView;
  /** ConfigStore.rejected(). */
  readonly rejected: readonly RejectedObject[];
  /** The issues of the last generation pass (generateAll), conflicts included. */
  readonly issues: readonly ConfigIssue[];
  /** The conflicts among `issues` (GenerateOutput.conflicts); configConflicts(view) when absent. */
  readonly conflicts?: readonly ConfigIssue[];
  /** Every Aeraki object of the API server. */
  readonly targets: readonly StatusTarget[];
  /** The proxies' answers to the routes (RDS acknowledgements); Programmed says only "served" without it. */
  readonly routeAcks?: RouteAcks;
  /** RFC 3339 time of new transitions. */
  readonly now: string;
  /** What istiod's proxies reject of this controller's EnvoyFilters (proxy-status); none when absent. */
  readonly listenerRejections?: readonly ListenerRejection[];
}

export interface StatusPlan {
  /** Statuses that differ from the current ones, in target order. */
  readonly patches: readonly StatusPatch[];
  /** Every Event describing a current problem, ordered by object, then reason. */
  readonly events: readonly EventSpec[];
}

const OWN_TYPES: ReadonlySet<string> = new Set(['Accepted', 'Programmed']);

export function byObject(issues: readonly ConfigIssue[]): Map<string, ConfigIssue[]> {
  const out = new Map<string, ConfigIssue[]>();
  for (const i of issues) {
    const k = refKey(i.ref);
    const list = out.get(k);
    if (list) list.push(i);
    else out.set(k, [i]);
  }
  return out;
}

/** The desired status of `target`: its current foreign conditions, then ours with kept transition times. */
export function desiredStatus(
  target: StatusTarget,
  conditions: readonly DesiredCondition[],
  now: string,
): ObjectStatus {
  const current = target.status?.conditions ?? [];
  const foreign = current.filter((c) => !OWN_TYPES.has(c.type));
  const ours = conditions.map((d): Condition => {
    const old = current.find((c) => c.type === d.type);
    const lastTransitionTime = old && old.status === d.status ? old.lastTransitionTime : now;
    return { ...d, lastTransitionTime, observedGeneration: target.generation };
  });
  return { observedGeneration: target.generation, conditions: [...foreign, ...ours] };
}

export function sameStatus(a: ObjectStatus | undefined, b: ObjectStatus): boolean {
  return a !== undefined && stableStringify(a) === stableStringify(b);
}

export function planStatus(input: StatusPlanInput): StatusPlan {
  const { view, targets, now } = input;
  const rejected = new Map(input.rejected.map((r) => [refKey(r.ref), r]));
  const issues = byObject(input.issues);
  const served = servedMetaRouters(view);
  const heldBy = heldSources(view, input.rejected);
  const proxyRejected = rejectedMetaRouters(view, input.listenerRejections ?? []);
  const desired: StatusPatch[] = [];
  for (const target of targets) {
    const key = refKey(target.ref);
    const r = rejected.get(key);
    const own = r === undefined ? validRuleIssues(view, target.ref) : [];
    const conditions = [acceptedCondition(r?.issues, [...own, ...(issues.get(key) ?? [])])];
    if (target.ref.kind === 'MetaRouter') {
      const holding = r === undefined ? [] : (heldBy.get(key) ?? []);
      const acks = input.routeAcks
        ? { routeAcks: input.routeAcks, generation: target.generation }
        : undefined;
      const programmed = programmedCondition(target.ref, view, served, r !== undefined, holding, acks);
      // A listener this MetaRouter's host is patched on, rejected by proxies (istiod's syncz), outweighs what
      // the RDS answers say unless they already say False.
      const byProxies = programmed.status !== 'False' ? proxyRejected.get(key) : undefined;
      conditions.push(byProxies ? rejectedProgrammed(byProxies) : programmed);
    }
    desired.push({ target, status: desiredStatus(target, conditions, now) });
  }
  // The existing side of each patch is its target's current status; a patch is written only where it differs.
  const plan = diffObjects<StatusPatch, StatusTarget>(desired, targets, {
    desiredKey: (p) => refKey(p.target.ref),
    existingKey: (t) => refKey(t.ref),
    changed: (p, t) => (t !== undefined && sameStatus(t.status, p.status) ? undefined : p),
    mayDelete: () => false,
  });
  const patches = plan.updates.map((u) => u.desired);
  return {
    patches,
    events: [...planEvents(input, uidsOf(targets)), ...proxyEvents(input)].sort(byKey),
  };
}

/** The listed uid of each target (refKey), for the Events' `regarding`. */
export function uidsOf(targets: readonly StatusTarget[]): (key: string) => string | undefined {
  const uids = new Map(targets.map((t) => [refKey(t.ref), t.uid]));
  return (key) => uids.get(key);
}

export function byKey(a: EventSpec, b: EventSpec): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** A ProxyRejected Event per MetaRouter whose routes a proxy rejects, keyed by the first rejected route and version. */
function proxyEvents(input: StatusPlanInput): EventSpec[] {
  const acks = input.routeAcks;
  if (!acks) return [];
  const out: EventSpec[] = [];
  for (const target of input.targets) {
    const event = proxyEvent(target, acks);
    if (event) out.push(event);
  }
  return out;
}

/** The ProxyRejected Event of one target: a MetaRouter whose routes a proxy rejects; undefined otherwise. */
export function proxyEvent(target: StatusTarget, acks: RouteAcks): EventSpec | undefined {
  if (target.ref.kind !== 'MetaRouter') return undefined;
  const first = proxyStanding(target.ref, acks, undefined).firstRejection;
  if (!first) return undefined;
  return {
    key: `${refKey(target.ref)}|ProxyRejected|${first.route}@${first.version}`,
    ref: target.ref,
    ...(target.uid ? { uid: target.uid } : {}),
    type: 'Warning',
    reason: 'ProxyRejected',
    action: 'Validate',
    note: routeRejectionNote(first),
  };
}

/** The issues the rules find in the valid version of `ref` (none when it has none). */
export function validRuleIssues(view: ConfigView, ref: ObjectRef): readonly ConfigIssue[] {
  const o = view.get(ref.kind as ConfigKind, ref.namespace, ref.name);
  return o ? ruleIssues(o, refOf(o), view.kinds) : [];
}

/** For each rejected object that holds anything (refKey), the ServiceEntries and Gateways it holds. */
export function heldSources(view: ConfigView, rejected: readonly RejectedObject[]): Map<string, ObjectRef[]> {
  const out = new Map<string, ObjectRef[]>();
  if (rejected.length === 0) return out;
  const sources = [...view.serviceEntries(), ...view.gateways()];
  for (const source of sources) {
    for (const holder of holdersOf(view, source)) {
      const k = refKey(holder);
      const list = out.get(k);
      if (list) list.push(refOf(source));
      else out.set(k, [refOf(source)]);
    }
  }
  return out;
}

function hasValidVersion(view: ConfigView, ref: ObjectRef): boolean {
  return view.get(ref.kind as ConfigKind, ref.namespace, ref.name) !== undefined;
}

function uidOf(
  view: ConfigView,
  ref: ObjectRef,
  uids: (key: string) => string | undefined,
): string | undefined {
  const listed = uids(refKey(ref));
  if (listed) return listed;
  return view.get(ref.kind as ConfigKind, ref.namespace, ref.name)?.metadata.uid || undefined;
}

/**
 * The Events of the problem lists (rejections, generation issues and conflicts, listener rejections): every Event
 * but ProxyRejected, ordered by key. `uids`: the listed uid of a target (refKey).
 */
export function planEvents(
  input: Omit<StatusPlanInput, 'targets' | 'now'>,
  uids: (key: string) => string | undefined,
): EventSpec[] {
  const { view } = input;
  const out: EventSpec[] = [];
  const add = (ref: ObjectRef, reason: EventReason, note: string) => {
    const uid = uidOf(view, ref, uids);
    out.push({
      key: `${refKey(ref)}|${reason}|${note}`,
      ref,
      ...(uid ? { uid } : {}),
      type: 'Warning',
      reason,
      action: 'Validate',
      note,
    });
  };
  for (const r of input.rejected) {
    add(r.ref, 'Invalid', issuesMessage(r.issues));
    if (hasValidVersion(view, r.ref)) {
      add(r.ref, 'Held', 'the object is invalid: its last valid version stays in effect until it is fixed');
    }
  }
  const conflicts = new Set((input.conflicts ?? configConflicts(view)).map(issueLine));
  for (const [ref, errors] of generationErrors(input, conflicts)) add(ref, 'Invalid', issuesMessage(errors));
  const seen = new Set<string>();
  for (const i of input.issues) {
    const line = issueLine(i);
    if (isHeldIssue(i) && !seen.has(line)) {
      seen.add(line);
      add(i.ref, 'Held', issuesMessage([i]));
      continue;
    }
    if (!conflicts.has(line) || seen.has(line)) continue;
    seen.add(line);
    add(i.ref, 'Conflict', issuesMessage([i]));
  }
  for (const r of input.listenerRejections ?? []) {
    const ref = sourceRef(r.source);
    if (!ref) continue;
    const uid = uidOf(view, ref, uids);
    out.push({
      key: rejectionKey(ref, r),
      ref,
      ...(uid ? { uid } : {}),
      type: 'Warning',
      reason: r.reason,
      action: 'Program',
      note: rejectionNote(r),
    });
  }
  return out.sort(byKey);
}

/**
 * The errors of the generation pass, by object (in issue order), of the objects the store has not rejected (their
 * rejection has its Event): a Secret that turned unusable for the last valid version of an object while the store
 * accepted it (shared with an object it still serves), a port whose filter cannot be built. Conflicts and held
 * notices have Events of their own.
 */
function generationErrors(
  input: Omit<StatusPlanInput, 'targets' | 'now'>,
  conflicts: ReadonlySet<string>,
): Map<ObjectRef, ConfigIssue[]> {
  const rejected = new Set(input.rejected.map((r) => refKey(r.ref)));
  const byRef = new Map<string, { ref: ObjectRef; errors: ConfigIssue[] }>();
  for (const i of input.issues) {
    if (severityOf(i) !== 'error' || isHeldIssue(i) || conflicts.has(issueLine(i))) continue;
    const key = refKey(i.ref);
    if (rejected.has(key)) continue;
    const entry = byRef.get(key);
    if (!entry) byRef.set(key, { ref: i.ref, errors: [i] });
    else if (!entry.errors.some((e) => issueLine(e) === issueLine(i))) entry.errors.push(i);
  }
  return new Map([...byRef.values()].map((e) => [e.ref, e.errors]));
}

/** The events not reported yet (`reported`: keys of Events created before and still current). */
export function newEvents(events: readonly EventSpec[], reported: ReadonlySet<string>): EventSpec[] {
  return events.filter((e) => !reported.has(e.key));
}
