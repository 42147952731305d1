/**
 * The complete desired output for the current config (spec aeraki-core.md 6.4, 6.5; deviations D4, D6, D7):
 * every port of every ServiceEntry goes to the generator of its own protocol; a ServiceEntry any of whose
 * ports failed renders nothing (its source key goes into failedSources, so a reconciler keeps what it wrote
 * before); then gateway mode. Pure: no I/O, no logging, no clock; never throws on input.
 */
import type { FilterDraft, Generator, SidecarContext } from '../model/generator.ts';
import type { OutputObject, ServiceEntry } from '../model/objects.ts';
import type { Protocol } from '../model/protocol.ts';
import {
  dedupeIssues,
  fail,
  issue,
  ok,
  type ConfigIssue,
  type ObjectRef,
  type Result,
} from '../model/result.ts';
import { compareStrings, creationTimeMs } from '../model/order.ts';
import type { ConfigView } from '../model/view.ts';
import { stableStringify } from '../util/json.ts';
import { codecLookup, gatewayContexts, sidecarContexts } from './context.ts';
import { placeDraft, placementNamespaces, sourceAnnotations, sourceKey, stampObject } from './placement.ts';

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

/** Output of one source before name-collision resolution. */
interface SourceOutput {
  readonly ref: ObjectRef;
  readonly key: string;
  /** The source's creationTimestamp: parsed only if some name is claimed twice (see claimOrder). */
  readonly createdAt: string | undefined;
  readonly objects: OutputObject[];
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

function generateServiceEntry(pass: Pass, se: ServiceEntry): SourceOutput | undefined {
  const { view, byProtocol, options, issues } = pass;
  const { namespace, name } = se.metadata;
  const ref: ObjectRef = { kind: 'ServiceEntry', namespace, name };
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
  const key = sourceKey('ServiceEntry', namespace, name);
  const metaRouter = contexts[0]?.metaRouter;
  const namespaces = placementNamespaces(se, metaRouter, view.rootNamespace, options.namespaceScope);
  const annotations = sourceAnnotations(key);
  const objects: OutputObject[] = [];
  for (const draft of drafts) for (const ns of namespaces) objects.push(placeDraft(draft, ns, annotations));
  return { ref, key, createdAt: se.metadata.creationTimestamp, objects };
}

function generateGateways(
  view: ConfigView,
  byProtocol: Map<Protocol, Generator>,
  issues: ConfigIssue[],
  failed: Set<string>,
): SourceOutput[] {
  const generator = byProtocol.get('metaprotocol');
  if (!generator?.generateGateway) return [];
  const out: SourceOutput[] = [];
  for (const gw of view.gateways()) {
    const contexts = gatewayContexts(view, gw);
    if (contexts.length === 0) continue;
    const { namespace, name } = gw.metadata;
    const ref: ObjectRef = { kind: 'Gateway', namespace, name };
    const key = sourceKey('Gateway', namespace, name);
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
    if (succeeded) out.push({ ref, key, createdAt: gw.metadata.creationTimestamp, objects });
    else failed.add(key);
  }
  return out;
}

/** Oldest source first, then namespace, name, kind: the order in which sources claim object names. */
function claimOrder(sources: readonly SourceOutput[]): SourceOutput[] {
  // Timestamps parsed once each (+Infinity when unknown: counts as newest). Equal times subtract to 0, two
  // unknown ones to NaN: both fall through to the names.
  const timed = sources.map((source) => ({ source, ms: creationTimeMs(source.createdAt) }));
  timed.sort(
    (a, b) =>
      a.ms - b.ms ||
      compareStrings(a.source.ref.namespace, b.source.ref.namespace) ||
      compareStrings(a.source.ref.name, b.source.ref.name) ||
      compareStrings(a.source.ref.kind, b.source.ref.kind),
  );
  return timed.map((t) => t.source);
}

/**
 * Every generated object, in generation order, with what the output order needs kept beside it while the object
 * is still in the caches: its name in a flat array, its index in the list of its namespace (namespaces are few).
 * Sorting then compares strings reached in one step from an array, instead of three (object, metadata, name),
 * which is most of the cost once tens of thousands of objects no longer fit in the caches.
 */
class Collected {
  readonly objects: OutputObject[] = [];
  readonly names: string[] = [];
  readonly byNamespace = new Map<string, number[]>();

  add(objects: readonly OutputObject[]): void {
    for (let k = 0; k < objects.length; k++) {
      const object = objects[k] as OutputObject;
      const index = this.objects.length;
      this.objects.push(object);
      this.names.push(object.metadata.name);
      const namespace = object.metadata.namespace;
      const list = this.byNamespace.get(namespace);
      if (list === undefined) this.byNamespace.set(namespace, [index]);
      else list.push(index);
    }
  }
}

/**
 * Keeps the first claim of every namespace/name/kind in claim order (oldest source first, see claimOrder);
 * identical duplicates from one source collapse, others become issues, in claim order. The result is sorted by
 * namespace, then name, then kind.
 *
 * Each namespace's objects are sorted by name (a stable sort: equal names stay in generation order), so objects
 * that share a namespace/name/kind end up next to each other and collisions are found between neighbours: no
 * table keyed by name (with tens of thousands of names, a hash table is a cache miss per insert, and costs more
 * than the sort). Claim order is computed only if some name has several claims (rare).
 */
function resolveClaims(
  collected: Collected,
  sources: readonly SourceOutput[],
  issues: ConfigIssue[],
): OutputObject[] {
  const { objects, names } = collected;
  const byName = (i: number, j: number): number => {
    const x = names[i] as string;
    const y = names[j] as string;
    if (x !== y) return x < y ? -1 : 1;
    return compareStrings((objects[i] as OutputObject).kind, (objects[j] as OutputObject).kind);
  };
  const out: OutputObject[] = [];
  const dropped: { position: number; issue: ConfigIssue }[] = [];
  const claimOf = lazyClaims(sources);
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
      const claims = order
        .slice(i, j)
        .map((index) => objects[index] as OutputObject)
        .sort((a, b) => claimOf(a).position - claimOf(b).position);
      i = j;
      const first = claims[0] as OutputObject;
      out.push(first);
      const prev = claimOf(first).source;
      for (let k = 1; k < claims.length; k++) {
        const object = claims[k] as OutputObject;
        const { source, position } = claimOf(object);
        if (prev !== source || stableStringify(first.spec) !== stableStringify(object.spec)) {
          const owner = prev === source ? 'another port of the same object' : prev.key;
          const message = `${object.kind} ${namespace}/${object.metadata.name} is already generated for ${owner}; this one is dropped`;
          dropped.push({ position, issue: issue(source.ref, '', message) });
        }
      }
    }
  }
  dropped.sort((a, b) => a.position - b.position);
  for (const d of dropped) issues.push(d.issue);
  return out;
}

/** The source and claim position (index over all objects in claim order) of each object, built on first use. */
function lazyClaims(
  sources: readonly SourceOutput[],
): (o: OutputObject) => { source: SourceOutput; position: number } {
  let claims: Map<OutputObject, { source: SourceOutput; position: number }> | undefined;
  return (o) => {
    if (claims === undefined) {
      claims = new Map();
      let position = 0;
      for (const source of claimOrder(sources)) {
        for (const object of source.objects) claims.set(object, { source, position: position++ });
      }
    }
    return claims.get(o) as { source: SourceOutput; position: number };
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
  const sources: SourceOutput[] = [];
  const collected = new Collected();
  const serviceEntries = view.serviceEntries();
  // Indexed: the list is frozen, and for-of over a frozen array allocates per element (V8 11).
  for (let i = 0; i < serviceEntries.length; i++) {
    const se = serviceEntries[i] as ServiceEntry;
    const out = generateServiceEntry(pass, se);
    if (out) {
      sources.push(out);
      collected.add(out.objects);
    } else failed.add(sourceKey('ServiceEntry', se.metadata.namespace, se.metadata.name));
  }
  for (const out of generateGateways(view, byProtocol, issues, failed)) {
    sources.push(out);
    collected.add(out.objects);
  }
  const objects = resolveClaims(collected, sources, issues);
  return { objects, issues: dedupeIssues(issues), failedSources: failed };
}
