/**
 * The complete desired output for the current config (spec aeraki-core.md 6.4, 6.5; deviations D4, D6, D7):
 * every port of every ServiceEntry goes to the generator of its own protocol; a ServiceEntry any of whose
 * ports failed renders nothing (its source key goes into failedSources, so a reconciler keeps what it wrote
 * before); then gateway mode. Pure: no I/O, no logging, no clock; never throws on input.
 */
import type { Generator } from '../model/generator.ts';
import type { OutputObject, ServiceEntry } from '../model/objects.ts';
import type { Protocol } from '../model/protocol.ts';
import { dedupeIssues, issue, type ConfigIssue, type ObjectRef, type Result } from '../model/result.ts';
import { compareStrings, creationTimeMs } from '../model/order.ts';
import type { ConfigView } from '../model/view.ts';
import { stableStringify } from '../util/json.ts';
import { gatewayContexts, sidecarContexts } from './context.ts';
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
  /** creationTimestamp in ms since the epoch (+Infinity when unknown: counts as newest). */
  readonly createdMs: number;
  readonly objects: OutputObject[];
}

function generatorsByProtocol(generators: readonly Generator[]): Map<Protocol, Generator> {
  const map = new Map<Protocol, Generator>();
  for (const g of generators) for (const p of g.protocols) if (!map.has(p)) map.set(p, g);
  return map;
}

/** Calls a generator; a thrown exception (a bug) becomes an issue instead of stopping the pass. */
function guarded<T>(ref: ObjectRef, generator: Generator, run: () => Result<T>): Result<T> {
  try {
    return run();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      issues: [issue(ref, '', `internal error in the ${generator.name} generator: ${message}`)],
    };
  }
}

function generateServiceEntry(
  view: ConfigView,
  se: ServiceEntry,
  byProtocol: Map<Protocol, Generator>,
  options: GenerateOptions,
  issues: ConfigIssue[],
): SourceOutput | undefined {
  const { namespace, name } = se.metadata;
  const ref: ObjectRef = { kind: 'ServiceEntry', namespace, name };
  const host = se.spec.hosts[0];
  if (host === undefined || host === '') {
    issues.push(issue(ref, 'spec.hosts', 'no hosts: nothing is generated for this ServiceEntry'));
    return undefined;
  }
  const contexts = sidecarContexts(view, se, host);
  const drafts = [];
  let failed = false;
  for (const ctx of contexts) {
    const generator = byProtocol.get(ctx.protocol);
    if (!generator) continue;
    const result = guarded(ref, generator, () => generator.generateSidecar(ctx));
    issues.push(...result.issues);
    if (result.ok) drafts.push(...result.value);
    else failed = true;
  }
  if (failed) return undefined;
  const key = sourceKey('ServiceEntry', namespace, name);
  const metaRouter = contexts[0]?.metaRouter;
  const namespaces = placementNamespaces(se, metaRouter, view.rootNamespace, options.namespaceScope);
  const annotations = sourceAnnotations(key);
  const objects: OutputObject[] = [];
  for (const draft of drafts) for (const ns of namespaces) objects.push(placeDraft(draft, ns, annotations));
  return { ref, key, createdMs: creationTimeMs(se.metadata.creationTimestamp), objects };
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
    let ok = true;
    for (const ctx of contexts) {
      const result = guarded(
        ref,
        generator,
        () => generator.generateGateway?.(ctx) ?? { ok: true, value: [], issues: [] },
      );
      issues.push(...result.issues);
      if (result.ok) objects.push(...result.value.map((o) => stampObject(o, key)));
      else ok = false;
    }
    if (ok) out.push({ ref, key, createdMs: creationTimeMs(gw.metadata.creationTimestamp), objects });
    else failed.add(key);
  }
  return out;
}

/** Oldest source first, then namespace, name, kind: the order in which sources claim object names. */
function claimOrder(sources: readonly SourceOutput[]): SourceOutput[] {
  // Equal times subtract to 0, two unknown ones to NaN: both fall through to the names.
  return [...sources].sort(
    (a, b) =>
      a.createdMs - b.createdMs ||
      compareStrings(a.ref.namespace, b.ref.namespace) ||
      compareStrings(a.ref.name, b.ref.name) ||
      compareStrings(a.ref.kind, b.ref.kind),
  );
}

/** Namespace, then name, then kind, as code units: the order of the output. */
function compareOutput(a: OutputObject, b: OutputObject): number {
  const an = a.metadata.namespace;
  const bn = b.metadata.namespace;
  if (an !== bn) return an < bn ? -1 : 1;
  const x = a.metadata.name;
  const y = b.metadata.name;
  if (x !== y) return x < y ? -1 : 1;
  return a.kind === b.kind ? 0 : a.kind < b.kind ? -1 : 1;
}

/**
 * Keeps the first claim of every namespace/name/kind in claim order (oldest source first, see claimOrder);
 * identical duplicates from one source collapse, others become issues, in claim order. The result is sorted by
 * namespace, then name, then kind.
 *
 * `all` (every object, in generation order) is sorted in place; objects that share a namespace/name/kind end up
 * next to each other, so collisions are found by comparing neighbours: no table keyed by name (with tens of
 * thousands of names, a hash table is a cache miss per insert, and costs more than the sort). Claim order is
 * computed only if some name has several claims (rare).
 */
function resolveClaims(
  all: OutputObject[],
  sources: readonly SourceOutput[],
  issues: ConfigIssue[],
): OutputObject[] {
  all.sort(compareOutput);
  const out: OutputObject[] = [];
  const dropped: { position: number; issue: ConfigIssue }[] = [];
  const claimOf = lazyClaims(sources);
  const n = all.length;
  for (let i = 0; i < n;) {
    const head = all[i] as OutputObject;
    let j = i + 1;
    while (j < n && compareOutput(head, all[j] as OutputObject) === 0) j++;
    if (j === i + 1) {
      out.push(head);
      i = j;
      continue;
    }
    const claims = all.slice(i, j).sort((a, b) => claimOf(a).position - claimOf(b).position);
    i = j;
    const first = claims[0] as OutputObject;
    out.push(first);
    const prev = claimOf(first).source;
    for (let k = 1; k < claims.length; k++) {
      const object = claims[k] as OutputObject;
      const { source, position } = claimOf(object);
      if (prev !== source || stableStringify(first.spec) !== stableStringify(object.spec)) {
        const { namespace, name } = object.metadata;
        const owner = prev === source ? 'another port of the same object' : prev.key;
        const message = `${object.kind} ${namespace}/${name} is already generated for ${owner}; this one is dropped`;
        dropped.push({ position, issue: issue(source.ref, '', message) });
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
  const failed = new Set<string>();
  const sources: SourceOutput[] = [];
  const all: OutputObject[] = [];
  for (const se of view.serviceEntries()) {
    const out = generateServiceEntry(view, se, byProtocol, options, issues);
    if (out) {
      sources.push(out);
      for (const object of out.objects) all.push(object);
    } else failed.add(sourceKey('ServiceEntry', se.metadata.namespace, se.metadata.name));
  }
  for (const out of generateGateways(view, byProtocol, issues, failed)) {
    sources.push(out);
    for (const object of out.objects) all.push(object);
  }
  const objects = resolveClaims(all, sources, issues);
  return { objects, issues: dedupeIssues(issues), failedSources: failed };
}
