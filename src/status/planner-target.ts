/**
 * The plan of one target (planner.ts), as planStatus (plan.ts) plans each: its desired status and, for a
 * MetaRouter, what it was planned from that later changes must find (its hosts and routes) and its ProxyRejected
 * Event.
 */
import type { ConfigKind, ConfigObject, MetaRouter, ServiceEntry } from '../model/objects.ts';
import type { ListenerRejection } from '../model/listener-rejections.ts';
import type { RejectedObject } from '../model/parse/objects.ts';
import { selectsProtocol } from '../model/protocol.ts';
import type { ConfigIssue, ObjectRef } from '../model/result.ts';
import type { ConfigView } from '../model/view.ts';
import { acceptedCondition, programmedCondition, refKey } from './conditions.ts';
import { desiredStatus, heldSources, proxyEvent, validRuleIssues } from './plan.ts';
import { hostLabel, type ServiceEntryIndex } from './planner-index.ts';
import { rejectedProgrammed } from './proxy-rejections.ts';
import type { Condition, EventSpec, ObjectStatus, StatusInputs, StatusTarget } from './types.ts';

/** A target and what its last plan read and found. */
export interface PlannedTarget {
  target: StatusTarget;
  /** The store's valid version and the store's rejection it was planned from (identity). */
  object?: ConfigObject | undefined;
  rejection?: RejectedObject | undefined;
  /** A MetaRouter's hosts and the routes built from it, as planned. */
  hosts: readonly string[];
  routes: readonly string[];
  /** A MetaRouter's ServiceEntries (servingEntries) and the MetaRouter used for its first host, as planned. */
  serving?: readonly ServiceEntry[];
  winner?: MetaRouter | undefined;
  /** The desired status; undefined before the first plan. */
  status?: ObjectStatus;
  proxyEvent?: EventSpec | undefined;
}

/** What one run plans its targets from. */
export interface TargetContext {
  readonly inputs: StatusInputs;
  readonly now: string;
  readonly rejected: ReadonlyMap<string, RejectedObject>;
  readonly issues: ReadonlyMap<string, readonly ConfigIssue[]>;
  readonly proxyRejected: ReadonlyMap<string, ListenerRejection>;
  readonly ses: ServiceEntryIndex;
  /** heldSources of the run, computed when a rejected MetaRouter is planned. */
  held?: Map<string, ObjectRef[]>;
}

function sameCondition(a: Condition, b: Condition): boolean {
  return (
    a.type === b.type &&
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.lastTransitionTime === b.lastTransitionTime &&
    a.observedGeneration === b.observedGeneration
  );
}

/** Equal statuses, field by field (ObjectStatus as kube.ts reads it: these fields only). */
export function equalStatus(a: ObjectStatus | undefined, b: ObjectStatus | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.observedGeneration !== b.observedGeneration) return false;
  return (
    a.conditions.length === b.conditions.length &&
    a.conditions.every((c, i) => sameCondition(c, b.conditions[i]!))
  );
}

/** Two listings of a target that plan alike: same generation, uid and status. */
export function sameTarget(a: StatusTarget, b: StatusTarget): boolean {
  return a.generation === b.generation && a.uid === b.uid && equalStatus(a.status, b.status);
}

const NOT_SERVED: ReadonlyMap<MetaRouter, boolean> = new Map();

/** The ServiceEntries whose first host picks the MetaRouter `mr` (servedMetaRouters, conditions.ts, for one). */
export function servingEntries(mr: MetaRouter, view: ConfigView, ses: ServiceEntryIndex): ServiceEntry[] {
  const out: ServiceEntry[] = [];
  for (const h of mr.spec.hosts) {
    for (const se of ses.withLabel(view, hostLabel(h))) {
      const first = se.spec.hosts[0];
      if (first === undefined || view.configForHost(first, se.metadata.namespace).metaRouter !== mr) continue;
      if (!out.includes(se)) out.push(se);
    }
  }
  return out;
}

/** The MetaRouter used for the first host of `mr` (another one: a conflict). */
export function winnerOf(mr: MetaRouter, view: ConfigView): MetaRouter | undefined {
  return view.configForHost(mr.spec.hosts[0] ?? '', mr.metadata.namespace).metaRouter;
}

function servedOf(mr: MetaRouter, serving: readonly ServiceEntry[]): ReadonlyMap<MetaRouter, boolean> {
  if (serving.length === 0) return NOT_SERVED;
  return new Map([
    [mr, serving.some((se) => se.spec.ports.some((p) => selectsProtocol(p.name, 'metaprotocol')))],
  ]);
}

/** Plans `e` again (its fields updated); returns true when its desired status differs from the listed one. */
export function planTarget(e: PlannedTarget, ctx: TargetContext): boolean {
  const { target } = e;
  const { ref } = target;
  const { view, routeAcks } = ctx.inputs;
  const key = refKey(ref);
  const r = ctx.rejected.get(key);
  e.object = view.get(ref.kind as ConfigKind, ref.namespace, ref.name);
  e.rejection = r;
  e.hosts = [];
  e.routes = [];
  e.proxyEvent = undefined;
  e.serving = undefined;
  e.winner = undefined;
  const own = r === undefined ? validRuleIssues(view, ref) : [];
  const conditions = [acceptedCondition(r?.issues, [...own, ...(ctx.issues.get(key) ?? [])])];
  if (ref.kind === 'MetaRouter') {
    const mr = e.object?.kind === 'MetaRouter' ? e.object : undefined;
    e.hosts = mr?.spec.hosts ?? [];
    const holding =
      r === undefined ? [] : ((ctx.held ??= heldSources(view, ctx.inputs.rejected)).get(key) ?? []);
    e.serving = mr ? servingEntries(mr, view, ctx.ses) : [];
    e.winner = mr ? winnerOf(mr, view) : undefined;
    const served = mr ? servedOf(mr, e.serving) : NOT_SERVED;
    const acks = routeAcks ? { routeAcks, generation: target.generation } : undefined;
    const programmed = programmedCondition(ref, view, served, r !== undefined, holding, acks);
    // As planStatus: a listener rejection outweighs the RDS answers unless they already say False.
    const byProxies = programmed.status !== 'False' ? ctx.proxyRejected.get(key) : undefined;
    conditions.push(byProxies ? rejectedProgrammed(byProxies) : programmed);
    if (routeAcks) {
      e.routes = routeAcks.routesOf(ref.namespace, ref.name).map((o) => o.name);
      e.proxyEvent = proxyEvent(target, routeAcks);
    }
  }
  e.status = desiredStatus(target, conditions, ctx.now);
  return target.status === undefined || !equalStatus(target.status, e.status);
}
