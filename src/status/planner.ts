/**
 * The status plan kept from run to run (issue 40: work proportional to what changed): each target's desired status
 * is planned again only when one of its inputs changed, so a run with nothing changed plans nothing and a run after
 * one change plans the few targets it touches. planStatus (plan.ts) stays the definition: for the same inputs this
 * plans what it plans (test/status/planner.test.ts compares them).
 *
 * What makes a target dirty (planned again on the next run):
 * - its listed object: a watch event or write answer (`changed`), or a list (`listed`) whose object differs in
 *   generation, uid or status from the one planned last (someone else edited the status: written back);
 * - the store's events (`StatusInputs.changes`): the object itself; for a MetaRouter or ServiceEntry, every
 *   MetaRouter sharing a host with it (which one wins a host, whether its ServiceEntry has a MetaProtocol port);
 *   for a Gateway, every rejected target (what it holds);
 * - the store's rejection of it appearing, going or changing; the issues of a generation pass about it changing;
 * - a listener rejection attributed to it appearing, going or changing;
 * - a route built from it (now or at its last plan) rebuilt or answered by a proxy (RouteAcks.takeChanged);
 * - a write still due (its status differs from the desired one): planned again on every run until written.
 * Without the store's events (`changes` absent), with another view, other plugin kinds or a MeshConfig change,
 * every target is planned. After a fresh list (the periodic resync) the store object and rejection each target
 * was planned from are compared with the current ones as well, so a missed event is repaired there.
 * Events: those of the problem lists (plan.ts planEvents) are planned again when a list changes or an object they
 * name changed; ProxyRejected is kept per MetaRouter with its plan.
 */
import type { ConfigObject, MetaRouter } from '../model/objects.ts';
import type { ListenerRejection } from '../model/listener-rejections.ts';
import type { RejectedObject } from '../model/parse/objects.ts';
import { issueLine, type ConfigIssue } from '../model/result.ts';
import type { RouteAcks } from '../model/route-acks.ts';
import type { ConfigEvent, ConfigView } from '../model/view.ts';
import { refKey } from './conditions.ts';
import { rejectedMetaRouters } from './proxy-rejections.ts';
import { byKey, byObject, planEvents, type StatusPlan } from './plan.ts';
import {
  planTarget,
  sameTarget,
  servingEntries,
  winnerOf,
  type PlannedTarget,
  type TargetContext,
} from './planner-target.ts';
import { ServiceEntryIndex, hostLabel } from './planner-index.ts';
import { runToEnd, type Slicer } from '../util/slices.ts';
import type { EventSpec, StatusInputs, StatusPatch, StatusTarget, TargetChanges } from './types.ts';

export type { StatusInputs, TargetChanges } from './types.ts';

interface Entry extends PlannedTarget {
  order: number;
}

/** What the last run read of each input, to see what changed. */
interface Seen {
  view?: ConfigView;
  kinds?: ConfigView['kinds'];
  rejected?: readonly RejectedObject[];
  issues?: readonly ConfigIssue[];
  conflicts?: readonly ConfigIssue[] | undefined;
  listenerRejections?: readonly ListenerRejection[] | undefined;
  routeAcks?: RouteAcks | undefined;
}

const NO_REJECTIONS: readonly ListenerRejection[] = [];

function addAll(to: Set<string>, from: Iterable<string> | undefined): void {
  if (from) for (const k of from) to.add(k);
}

/** Adds to `dirty` every key whose value differs between `before` and `after`; returns true when one did. */
function diffKeys<V>(
  before: ReadonlyMap<string, V>,
  after: ReadonlyMap<string, V>,
  dirty: Set<string>,
): boolean {
  let changed = false;
  for (const [k, v] of after) {
    if (before.get(k) === v) continue;
    dirty.add(k);
    changed = true;
  }
  for (const k of before.keys()) {
    if (after.has(k)) continue;
    dirty.add(k);
    changed = true;
  }
  return changed;
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a === b || (a.length === b.length && a.every((x, i) => x === b[i]));

const linesOf = (issues: readonly ConfigIssue[] | undefined) => issues?.map(issueLine).join('\n');

function index(map: Map<string, Set<string>>, keys: readonly string[], value: string, add: boolean): void {
  for (const k of keys) {
    let set = map.get(k);
    if (add) {
      if (!set) map.set(k, (set = new Set()));
      set.add(value);
    } else if (set) {
      set.delete(value);
      if (set.size === 0) map.delete(k);
    }
  }
}

export class StatusPlanner {
  private readonly entries = new Map<string, Entry>();
  private readonly dirty = new Set<string>();
  /** Targets whose desired status differs from their listed one. */
  private readonly due = new Set<string>();
  private everything = true;
  /** After a fresh list: compare each target's store object and rejection with those it was planned from. */
  private verify = false;
  private eventsStale = true;
  private proxyEventsChanged = true;
  private listenerStale = true;
  private nextOrder = 0;
  private seen: Seen = {};
  private rejectedByKey = new Map<string, RejectedObject>();
  private issuesByKey = new Map<string, ConfigIssue[]>();
  private issueText = new Map<string, string>();
  private conflictText: string | undefined;
  private proxyRejected = new Map<string, ListenerRejection>();
  /** MetaRouter targets by the first label of each of their hosts (hostLabel), and by their routes. */
  private readonly byLabel = new Map<string, Set<string>>();
  private readonly byRoute = new Map<string, Set<string>>();
  private readonly ses = new ServiceEntryIndex();
  private problemEvents: EventSpec[] = [];
  private eventRefs = new Set<string>();
  private events: readonly EventSpec[] = [];

  /** Targets planned by the last `plan()` (what it cost): none when nothing changed. */
  planned = 0;

  /** How many targets it holds. */
  get size(): number {
    return this.entries.size;
  }

  /** Every target as listed now (a real list, or the cache's whole content). `fresh`: a resync list. */
  listed(targets: readonly StatusTarget[], fresh: boolean): void {
    const present = new Set<string>();
    targets.forEach((t, i) => {
      const key = refKey(t.ref);
      present.add(key);
      this.upsert(key, t, i);
    });
    this.nextOrder = targets.length;
    for (const key of [...this.entries.keys()]) if (!present.has(key)) this.remove(key);
    if (fresh) this.verify = true;
  }

  /** The targets changed or deleted since the last list. */
  changed(changes: TargetChanges): void {
    for (const t of changes.changed) this.upsert(refKey(t.ref), t, undefined);
    for (const ref of changes.deleted) this.remove(refKey(ref));
  }

  /** The status writes due and the current Events, planning again what changed since the last call. */
  plan(inputs: StatusInputs, now: string): StatusPlan {
    return runToEnd(this.planSteps(inputs, now));
  }

  /**
   * `plan` in `slicer`'s slices (util/slices.ts): a full plan (the first run, a MeshConfig change) or a resync's
   * check of every target yields to the loop every slice. Only the controller's runs touch the planner, and they
   * never overlap, so nothing changes it between slices; a pass abandoned at a yield (SlicesStopped) leaves the
   * keys it had not planned dirty, and planning a key twice gives the same plan.
   */
  planSliced(inputs: StatusInputs, now: string, slicer: Slicer): Promise<StatusPlan> {
    return slicer.run(this.planSteps(inputs, now));
  }

  private *planSteps(inputs: StatusInputs, now: string): Generator<void, StatusPlan, undefined> {
    this.readInputs(inputs);
    if (this.everything) {
      addAll(this.dirty, this.entries.keys());
      this.ses.forget();
      yield* this.ses.prepare(inputs.view);
      this.eventsStale = true;
      this.everything = false;
    } else if (this.verify) {
      yield* this.verifyAll(inputs.view);
    }
    this.verify = false;
    addAll(this.dirty, this.due);
    this.planned = 0;
    if (this.dirty.size > 0) yield* this.planDirty(inputs, now);
    if (this.eventsStale) {
      this.problemEvents = planEvents(inputs, (key) => this.entries.get(key)?.target.uid);
      this.eventRefs = new Set(this.problemEvents.map((e) => refKey(e.ref)));
    }
    if (this.eventsStale || this.proxyEventsChanged) {
      const proxy: EventSpec[] = [];
      for (const e of this.entries.values()) if (e.proxyEvent) proxy.push(e.proxyEvent);
      this.events = [...this.problemEvents, ...proxy].sort(byKey);
    }
    this.eventsStale = false;
    this.proxyEventsChanged = false;
    return { patches: this.patches(), events: this.events };
  }

  private upsert(key: string, t: StatusTarget, order: number | undefined): void {
    const e = this.entries.get(key);
    if (!e) {
      this.entries.set(key, { target: t, order: order ?? this.nextOrder++, hosts: [], routes: [] });
      this.dirty.add(key);
      if (this.eventRefs.has(key)) this.eventsStale = true;
      return;
    }
    if (order !== undefined) e.order = order;
    if (e.target === t) return;
    if (!sameTarget(e.target, t)) this.dirty.add(key);
    if (e.target.uid !== t.uid && this.eventRefs.has(key)) this.eventsStale = true;
    e.target = t;
  }

  private remove(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    index(this.byLabel, e.hosts.map(hostLabel), key, false);
    index(this.byRoute, e.routes, key, false);
    if (e.proxyEvent) this.proxyEventsChanged = true;
    if (this.eventRefs.has(key)) this.eventsStale = true;
    this.entries.delete(key);
    this.due.delete(key);
  }

  private readInputs(inputs: StatusInputs): void {
    const { view } = inputs;
    const seen = this.seen;
    if (view !== seen.view || view.kinds !== seen.kinds || inputs.changes === undefined)
      this.everything = true;
    for (const e of inputs.changes ?? []) this.noteConfig(e);
    if (inputs.rejected !== seen.rejected) {
      const next = new Map(inputs.rejected.map((r) => [refKey(r.ref), r]));
      if (diffKeys(this.rejectedByKey, next, this.dirty)) this.eventsStale = true;
      this.rejectedByKey = next;
    }
    if (inputs.issues !== seen.issues) {
      this.issuesByKey = byObject(inputs.issues);
      const text = new Map([...this.issuesByKey].map(([k, list]) => [k, linesOf(list) ?? '']));
      if (diffKeys(this.issueText, text, this.dirty)) this.eventsStale = true;
      this.issueText = text;
    }
    if (inputs.conflicts !== seen.conflicts) {
      const text = linesOf(inputs.conflicts);
      if (text !== this.conflictText) this.eventsStale = true;
      this.conflictText = text;
    }
    // Without the pass's conflicts, planEvents finds them in the view, which any change may move.
    if (!inputs.conflicts && this.dirty.size > 0) this.eventsStale = true;
    const rejections = inputs.listenerRejections ?? NO_REJECTIONS;
    if (rejections !== seen.listenerRejections) this.eventsStale = true;
    if (rejections !== seen.listenerRejections || this.listenerStale || this.everything) {
      const next = rejectedMetaRouters(view, rejections);
      diffKeys(this.proxyRejected, next, this.dirty);
      this.proxyRejected = next;
      this.listenerStale = false;
    }
    this.readAcks(inputs.routeAcks);
    this.seen = {
      view,
      kinds: view.kinds,
      rejected: inputs.rejected,
      issues: inputs.issues,
      conflicts: inputs.conflicts,
      listenerRejections: rejections,
      routeAcks: inputs.routeAcks,
    };
  }

  private readAcks(acks: RouteAcks | undefined): void {
    const taken = acks?.takeChanged?.();
    if (acks !== this.seen.routeAcks || (acks && taken === undefined)) {
      for (const [key, e] of this.entries) if (e.target.ref.kind === 'MetaRouter') this.dirty.add(key);
      return;
    }
    for (const route of taken ?? []) {
      addAll(this.dirty, this.byRoute.get(route));
      const mr = acks?.metaRouterOf?.(route);
      if (mr) this.dirty.add(`MetaRouter/${mr}`);
    }
  }

  /** One store event: the object, and what shares a host with it or holds through it. */
  private noteConfig(e: ConfigEvent): void {
    switch (e.kind) {
      case 'MeshConfig':
        this.everything = true;
        return;
      case 'EndpointPorts':
      case 'Namespace':
      case 'KubernetesGateway':
      case 'GatewayClass':
        return; // not read by the plan
    }
    const key = `${e.kind}/${e.namespace}/${e.name}`;
    this.dirty.add(key);
    if (this.eventRefs.has(key)) this.eventsStale = true;
    if (e.type === 'held') {
      // What the rejected object holds moved: the holding ones say what they hold.
      addAll(this.dirty, this.rejectedByKey.keys());
      return;
    }
    const objects = [e.old, e.object].filter((o): o is ConfigObject => o !== undefined && 'kind' in o);
    if (e.kind === 'MetaRouter') {
      for (const h of this.entries.get(key)?.hosts ?? []) addAll(this.dirty, this.byLabel.get(hostLabel(h)));
      for (const o of objects) {
        if (o.kind !== 'MetaRouter') continue;
        for (const h of o.spec.hosts) addAll(this.dirty, this.byLabel.get(hostLabel(h)));
      }
      this.listenerStale = true;
    } else if (e.kind === 'ServiceEntry' || e.kind === 'Service') {
      const hosts = this.ses.note(key, e.old, e.object);
      if (hosts === undefined) this.everything = true;
      else for (const h of hosts) addAll(this.dirty, this.byLabel.get(hostLabel(h)));
      this.listenerStale = true;
    } else if (e.kind === 'Gateway') {
      addAll(this.dirty, this.rejectedByKey.keys());
    }
  }

  /**
   * After a fresh list: a target whose store object or rejection, or (a MetaRouter) whose ServiceEntries or the
   * MetaRouter used for its host, is not the one it was planned from is dirty (an event missed).
   */
  private *verifyAll(view: ConfigView): Generator<void, void, undefined> {
    this.ses.forget();
    yield* this.ses.prepare(view);
    this.listenerStale = true;
    for (const [key, e] of this.entries) {
      const { kind, namespace, name } = e.target.ref;
      const object = view.get(kind as ConfigObject['kind'], namespace, name);
      if (object !== e.object || this.rejectedByKey.get(key) !== e.rejection) this.dirty.add(key);
      else if (object?.kind === 'MetaRouter' && !this.sameServing(object, e, view)) this.dirty.add(key);
      yield;
    }
  }

  private sameServing(mr: MetaRouter, e: Entry, view: ConfigView): boolean {
    const serving = servingEntries(mr, view, this.ses);
    const before = e.serving ?? [];
    return (
      winnerOf(mr, view) === e.winner &&
      serving.length === before.length &&
      serving.every((se, i) => se === before[i])
    );
  }

  private *planDirty(inputs: StatusInputs, now: string): Generator<void, void, undefined> {
    const ctx: TargetContext = {
      inputs,
      now,
      rejected: this.rejectedByKey,
      issues: this.issuesByKey,
      proxyRejected: this.proxyRejected,
      ses: this.ses,
    };
    for (const key of this.dirty) {
      if (this.eventRefs.has(key)) this.eventsStale = true;
      const e = this.entries.get(key);
      if (!e) continue;
      const { hosts, routes, proxyEvent } = e;
      const due = planTarget(e, ctx);
      this.planned++;
      if (!sameList(hosts, e.hosts)) {
        index(this.byLabel, hosts.map(hostLabel), key, false);
        index(this.byLabel, e.hosts.map(hostLabel), key, true);
      }
      if (!sameList(routes, e.routes)) {
        index(this.byRoute, routes, key, false);
        index(this.byRoute, e.routes, key, true);
      }
      if (proxyEvent?.key !== e.proxyEvent?.key || proxyEvent?.uid !== e.proxyEvent?.uid) {
        this.proxyEventsChanged = true;
      }
      if (due) this.due.add(key);
      else this.due.delete(key);
      yield;
    }
    this.dirty.clear();
  }

  private patches(): StatusPatch[] {
    const due = [...this.due].map((k) => this.entries.get(k)!).sort((a, b) => a.order - b.order);
    return due.map((e) => ({ target: e.target, status: e.status! }));
  }
}
