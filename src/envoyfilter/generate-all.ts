/**
 * The complete desired output for the current config (spec aeraki-core.md 6.4, 6.5; deviations D4, D6, D7):
 * every port of every ServiceEntry goes to the generator of its own protocol; a ServiceEntry any of whose
 * ports failed renders nothing (its source key goes into failedSources, so a reconciler keeps what it wrote
 * before); then gateway mode. Pure: no I/O, no logging, no clock; never throws on input.
 */
import type { FilterDraft, Generator, SidecarContext } from '../model/generator.ts';
import type { Gateway, OutputObject, ServiceEntry } from '../model/objects.ts';
import type { Protocol } from '../model/protocol.ts';
import {
  dedupeIssues,
  fail,
  issue,
  ok,
  refOf,
  type ConfigIssue,
  type ObjectRef,
  type Result,
} from '../model/result.ts';
import { compareByName, compareStrings, creationTimeMs } from '../model/order.ts';
import type { ConfigView } from '../model/view.ts';
import { stableStringify } from '../util/json.ts';
import { codecLookup, gatewayContexts, sidecarContexts } from './context.ts';
import { sourceKey } from '../model/names.ts';
import { placeDraft, placementNamespaces, sourceAnnotations, stampObject } from './placement.ts';

export interface GenerateOptions {
  /** Aeraki's --enable-envoy-filter-namespace-scope: filters without exportTo go to the ServiceEntry namespace. */
  readonly namespaceScope: boolean;
}

export interface GenerateOutput {
  /** EnvoyFilters and gateway VirtualServices, sorted by namespace, then name, then kind. */
  readonly objects: OutputObject[];
  /** Every problem found, deduplicated, in generation order. */
  readonly issues: ConfigIssue[];
  /** Sources (`ServiceEntry/<ns>/<name>`, `Gateway/<ns>/<name>`) whose generation failed: keep their old output. */
  readonly failedSources: ReadonlySet<string>;
}

/** What generated objects come from: a ServiceEntry (sidecar filters) or a Gateway (gateway mode). */
type SourceObject = ServiceEntry | Gateway;

function keyOf(source: SourceObject): string {
  return sourceKey(source.kind, source.metadata.namespace, source.metadata.name);
}

function generatorsByProtocol(generators: readonly Generator[]): Map<Protocol, Generator> {
  const map = new Map<Protocol, Generator>();
  for (const g of generators) for (const p of g.protocols) if (!map.has(p)) map.set(p, g);
  return map;
}

/** A generator's exception (a bug) as the issue that replaces its result: the pass goes on. */
function internalError<T>(ref: ObjectRef, generator: Generator, err: unknown): Result<T> {
  const message = err instanceof Error ? err.message : String(err);
  return fail([issue(ref, '', `internal error in the ${generator.name} generator: ${message}`)]);
}

/** generator.generateSidecar(ctx), an exception becoming an issue (no closure: this runs for every port). */
function guardedSidecar(
  ref: ObjectRef,
  generator: Generator,
  ctx: SidecarContext,
): Result<readonly FilterDraft[]> {
  try {
    return generator.generateSidecar(ctx);
  } catch (err) {
    return internalError(ref, generator, err);
  }
}

/** What every service of one pass shares. */
interface Pass {
  readonly view: ConfigView;
  readonly byProtocol: Map<Protocol, Generator>;
  readonly options: GenerateOptions;
  readonly codecFor: (applicationProtocol: string) => string | undefined;
  readonly issues: ConfigIssue[];
}

function generateServiceEntry(pass: Pass, se: ServiceEntry): OutputObject[] | undefined {
  const { view, byProtocol, options, issues } = pass;
  const ref = refOf(se);
  const host = se.spec.hosts[0];
  if (host === undefined || host === '') {
    issues.push(issue(ref, 'spec.hosts', 'no hosts: nothing is generated for this ServiceEntry'));
    return undefined;
  }
  const contexts = sidecarContexts(view, se, host, pass.codecFor);
  const drafts: FilterDraft[] = [];
  let failed = false;
  for (const ctx of contexts) {
    const generator = byProtocol.get(ctx.protocol);
    if (!generator) continue;
    const result = guardedSidecar(ref, generator, ctx);
    for (const i of result.issues) issues.push(i);
    if (result.ok) for (const d of result.value) drafts.push(d);
    else failed = true;
  }
  if (failed) return undefined;
  const key = keyOf(se);
  const metaRouter = contexts[0]?.metaRouter;
  const namespaces = placementNamespaces(se, metaRouter, view.rootNamespace, options.namespaceScope);
  const annotations = sourceAnnotations(key);
  const objects: OutputObject[] = [];
  for (const draft of drafts) for (const ns of namespaces) objects.push(placeDraft(draft, ns, annotations));
  return objects;
}

function generateGateways(
  view: ConfigView,
  byProtocol: Map<Protocol, Generator>,
  issues: ConfigIssue[],
  failed: Set<string>,
  collected: Collected,
): void {
  const generator = byProtocol.get('metaprotocol');
  if (!generator?.generateGateway) return;
  for (const gw of view.gateways()) {
    const contexts = gatewayContexts(view, gw);
    if (contexts.length === 0) continue;
    const ref = refOf(gw);
    const key = keyOf(gw);
    const objects: OutputObject[] = [];
    let succeeded = true;
    for (const ctx of contexts) {
      let result: Result<readonly OutputObject[]>;
      try {
        result = generator.generateGateway?.(ctx) ?? ok([]);
      } catch (err) {
        result = internalError(ref, generator, err);
      }
      issues.push(...result.issues);
      if (result.ok) objects.push(...result.value.map((o) => stampObject(o, key)));
      else succeeded = false;
    }
    if (succeeded) collected.add(gw, objects);
    else failed.add(key);
  }
}

/** Source indexes, oldest source first, then namespace, name, kind: the order in which sources claim names. */
function claimOrder(sources: readonly SourceObject[]): number[] {
  // Timestamps parsed once each (+Infinity when unknown: counts as newest). Equal times subtract to 0, two
  // unknown ones to NaN: both fall through to the names.
  const ms = sources.map((source) => creationTimeMs(source.metadata.creationTimestamp));
  const order = sources.map((_, i) => i);
  return order.sort((i, j) => {
    const a = sources[i] as SourceObject;
    const b = sources[j] as SourceObject;
    return (ms[i] as number) - (ms[j] as number) || compareByName(a, b) || compareStrings(a.kind, b.kind);
  });
}

/**
 * Every generated object, in generation order, with what the output order needs kept beside it while the object
 * is still in the caches: its name in a flat array, its index in the list of its namespace (namespaces are few).
 * Sorting then compares strings reached in one step from an array, instead of three (object, metadata, name),
 * which is most of the cost once tens of thousands of objects no longer fit in the caches.
 *
 * The list of a namespace is laid out for the sort, not in generation order: sources come in name order
 * (namespace, then name), and within a run of sources of one namespace the k-th objects of every source (its
 * inbound filter, its first outbound filter, ...) are listed together, lane by lane. Names are built from hosts,
 * and hosts mostly follow the names of their sources within a namespace, so each lane is mostly already sorted:
 * the sort (a merge sort that finds sorted runs) merges a few runs per namespace of sources instead of ordering
 * every name from scratch, which halves its comparisons at 10,000 services and makes it grow with the number of
 * namespaces rather than with log2 of the number of objects. Any layout sorts to the same result.
 */
class Collected {
  readonly objects: OutputObject[] = [];
  readonly names: string[] = [];
  readonly byNamespace = new Map<string, number[]>();
  /** The sources in generation order; the objects of source `s` are objects[firsts[s]] up to the next first. */
  readonly sources: SourceObject[] = [];
  readonly firsts: number[] = [];
  /** The namespace of the current run of sources, and its lanes: output namespace → k → object indexes. */
  private runNamespace: string | undefined;
  private readonly lanes = new Map<string, number[][]>();

  add(source: SourceObject, objects: readonly OutputObject[]): void {
    if (source.metadata.namespace !== this.runNamespace) {
      this.flush();
      this.runNamespace = source.metadata.namespace;
    }
    this.sources.push(source);
    this.firsts.push(this.objects.length);
    for (let k = 0; k < objects.length; k++) {
      const object = objects[k] as OutputObject;
      const index = this.objects.length;
      this.objects.push(object);
      this.names.push(object.metadata.name);
      const namespace = object.metadata.namespace;
      let lanes = this.lanes.get(namespace);
      if (lanes === undefined) {
        lanes = [];
        this.lanes.set(namespace, lanes);
      }
      const lane = lanes[k];
      if (lane === undefined) lanes.push([index]);
      else lane.push(index);
    }
  }

  /** Ends the current run of sources: its lanes go to the lists of their namespaces, lane 0 first. */
  flush(): void {
    for (const [namespace, lanes] of this.lanes) {
      let list = this.byNamespace.get(namespace);
      if (list === undefined) {
        list = [];
        this.byNamespace.set(namespace, list);
      }
      for (let k = 0; k < lanes.length; k++) {
        const lane = lanes[k] as number[];
        for (let i = 0; i < lane.length; i++) list.push(lane[i] as number);
      }
    }
    this.lanes.clear();
  }
}

/**
 * Keeps the first claim of every namespace/name/kind in claim order (oldest source first, see claimOrder);
 * identical duplicates from one source collapse, others become issues, in claim order. The result is sorted by
 * namespace, then name, then kind.
 *
 * Each namespace's objects are sorted by name, then kind (see Collected for the layout the sort starts from), so
 * objects that share a namespace/name/kind end up next to each other, where their claims are ordered by claim
 * position whatever order the sort left them in, and collisions are found between neighbours: no
 * table keyed by name (with tens of thousands of names, a hash table is a cache miss per insert, and costs more
 * than the sort). Claim order is computed only if some name has several claims (rare).
 */
function resolveClaims(collected: Collected, issues: ConfigIssue[]): OutputObject[] {
  collected.flush();
  const { objects, names, sources } = collected;
  const byName = (i: number, j: number): number =>
    compareStrings(names[i] as string, names[j] as string) ||
    compareStrings((objects[i] as OutputObject).kind, (objects[j] as OutputObject).kind);
  const out: OutputObject[] = [];
  const dropped: { position: number; issue: ConfigIssue }[] = [];
  const claimOf = lazyClaims(collected);
  for (const namespace of [...collected.byNamespace.keys()].sort()) {
    const order = (collected.byNamespace.get(namespace) as number[]).sort(byName);
    const n = order.length;
    for (let i = 0; i < n;) {
      const head = order[i] as number;
      let j = i + 1;
      while (j < n && byName(head, order[j] as number) === 0) j++;
      if (j === i + 1) {
        out.push(objects[head] as OutputObject);
        i = j;
        continue;
      }
      const claims = order.slice(i, j).sort((a, b) => claimOf(a).position - claimOf(b).position);
      i = j;
      const first = objects[claims[0] as number] as OutputObject;
      out.push(first);
      const prev = claimOf(claims[0] as number).source;
      for (let k = 1; k < claims.length; k++) {
        const object = objects[claims[k] as number] as OutputObject;
        const { source, position } = claimOf(claims[k] as number);
        if (prev !== source || stableStringify(first.spec) !== stableStringify(object.spec)) {
          const owner =
            prev === source ? 'another port of the same object' : keyOf(sources[prev] as SourceObject);
          const message = `${object.kind} ${namespace}/${object.metadata.name} is already generated for ${owner}; this one is dropped`;
          dropped.push({ position, issue: issue(refOf(sources[source] as SourceObject), '', message) });
        }
      }
    }
  }
  dropped.sort((a, b) => a.position - b.position);
  for (const d of dropped) issues.push(d.issue);
  return out;
}

/**
 * The source (index into collected.sources) and claim position (index over all objects in claim order) of each
 * object (index into collected.objects), built on first use.
 */
function lazyClaims(collected: Collected): (object: number) => { source: number; position: number } {
  let claims: { source: number; position: number }[] | undefined;
  return (object) => {
    if (claims === undefined) {
      const { sources, firsts, objects } = collected;
      const table = new Array<{ source: number; position: number }>(objects.length);
      let position = 0;
      for (const s of claimOrder(sources)) {
        const end = s + 1 < firsts.length ? (firsts[s + 1] as number) : objects.length;
        for (let o = firsts[s] as number; o < end; o++) table[o] = { source: s, position: position++ };
      }
      claims = table;
    }
    return claims[object] as { source: number; position: number };
  };
}

export function generateAll(
  view: ConfigView,
  generators: readonly Generator[],
  options: GenerateOptions,
): GenerateOutput {
  const byProtocol = generatorsByProtocol(generators);
  const issues: ConfigIssue[] = [];
  const pass: Pass = { view, byProtocol, options, codecFor: codecLookup(view), issues };
  const failed = new Set<string>();
  const collected = new Collected();
  const serviceEntries = view.serviceEntries();
  // Indexed: the list is frozen, and for-of over a frozen array allocates per element (V8 11).
  for (let i = 0; i < serviceEntries.length; i++) {
    const se = serviceEntries[i] as ServiceEntry;
    const objects = generateServiceEntry(pass, se);
    if (objects) collected.add(se, objects);
    else failed.add(keyOf(se));
  }
  generateGateways(view, byProtocol, issues, failed, collected);
  const objects = resolveClaims(collected, issues);
  return { objects, issues: dedupeIssues(issues), failedSources: failed };
}
