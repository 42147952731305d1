/**
 * The complete desired output for the current config (spec aeraki-core.md 6.4, 6.5; deviations D4, D6, D7):
 * every port of every ServiceEntry goes to the generator of its own protocol; a ServiceEntry any of whose
 * ports failed renders nothing (its source key goes into failedSources, so a reconciler keeps what it wrote
 * before); then gateway mode. Pure: no I/O, no logging, no clock; never throws on input.
 */
import type { Generator } from '../model/generator.ts';
import type { OutputObject, ServiceEntry } from '../model/objects.ts';
import type { Protocol } from '../model/protocol.ts';
import { formatIssue, issue, type ConfigIssue, type ObjectRef, type Result } from '../model/result.ts';
import { creationTimeMs } from '../model/order.ts';
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
  readonly creationTimestamp: string;
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
  return { ref, key, creationTimestamp: se.metadata.creationTimestamp, objects };
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
    if (ok) out.push({ ref, key, creationTimestamp: gw.metadata.creationTimestamp, objects });
    else failed.add(key);
  }
  return out;
}

/** Code-unit order of two strings (what a plain sort() of strings uses). */
function compareStrings(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/** Oldest source first, then namespace, name, kind: the order in which sources claim object names. */
function claimOrder(sources: readonly SourceOutput[]): SourceOutput[] {
  const times = new Map<SourceOutput, number>();
  for (const s of sources) times.set(s, creationTimeMs(s.creationTimestamp));
  return [...sources].sort(
    (a, b) =>
      (times.get(a) as number) - (times.get(b) as number) ||
      compareStrings(a.ref.namespace, b.ref.namespace) ||
      compareStrings(a.ref.name, b.ref.name) ||
      compareStrings(a.ref.kind, b.ref.kind),
  );
}

/** Namespace, then name, then kind. */
function compareObjects(a: OutputObject, b: OutputObject): number {
  return (
    compareStrings(a.metadata.namespace, b.metadata.namespace) ||
    compareStrings(a.metadata.name, b.metadata.name) ||
    compareStrings(a.kind, b.kind)
  );
}

/**
 * Keeps the first claim of every namespace/name/kind; identical duplicates collapse, others become issues. The
 * result is sorted by namespace, then name, then kind.
 *
 * All objects are listed in claim order and sorted by id; the sort is stable (ECMAScript requires it), so the
 * claims of one id end up adjacent, first claim first. One sort and one pass, with no per-object key strings or
 * map entries (at 10k services those are tens of thousands of long-lived allocations); the owner of an object is
 * looked up only when a collision is found.
 */
function resolveCollisions(sources: readonly SourceOutput[], issues: ConfigIssue[]): OutputObject[] {
  const claimed = claimOrder(sources);
  const objects: OutputObject[] = [];
  for (const source of claimed) for (const object of source.objects) objects.push(object);
  objects.sort(compareObjects);
  let claims: Map<OutputObject, { source: SourceOutput; position: number }> | undefined;
  const claimOf = (o: OutputObject): { source: SourceOutput; position: number } => {
    if (claims === undefined) {
      claims = new Map();
      let position = 0;
      for (const source of claimed)
        for (const object of source.objects) claims.set(object, { source, position: position++ });
    }
    return claims.get(o) as { source: SourceOutput; position: number };
  };
  const out: OutputObject[] = [];
  const dropped: { position: number; issue: ConfigIssue }[] = [];
  let first: OutputObject | undefined;
  for (const object of objects) {
    if (first === undefined || compareObjects(first, object) !== 0) {
      first = object;
      out.push(object);
      continue;
    }
    const prev = claimOf(first).source;
    const { source, position } = claimOf(object);
    if (prev !== source || stableStringify(first.spec) !== stableStringify(object.spec)) {
      const owner = prev === source ? 'another port of the same object' : prev.key;
      const message = `${object.kind} ${object.metadata.namespace}/${object.metadata.name} is already generated for ${owner}; this one is dropped`;
      dropped.push({ position, issue: issue(source.ref, '', message) });
    }
  }
  // Issues in claim order, as the claims were made.
  dropped.sort((a, b) => a.position - b.position);
  for (const d of dropped) issues.push(d.issue);
  return out;
}

function dedupe(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = formatIssue(i);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
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
  for (const se of view.serviceEntries()) {
    const out = generateServiceEntry(view, se, byProtocol, options, issues);
    if (out) sources.push(out);
    else failed.add(sourceKey('ServiceEntry', se.metadata.namespace, se.metadata.name));
  }
  sources.push(...generateGateways(view, byProtocol, issues, failed));
  const objects = resolveCollisions(sources, issues);
  return { objects, issues: dedupe(issues), failedSources: failed };
}
