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
import { placeDraft, placementNamespaces, sourceKey, stampObject } from './placement.ts';

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
  const objects: OutputObject[] = [];
  for (const draft of drafts) for (const ns of namespaces) objects.push(placeDraft(draft, ns, key));
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

/**
 * A string key whose code-unit order is the order of its parts (NUL sorts below every other character), so a
 * plain sort of keys orders by namespace, then name, then kind.
 */
function tupleKey(...parts: string[]): string {
  return parts.join('\u0000');
}

/** Oldest source first, then namespace, name, kind: the order in which sources claim object names. */
function claimOrder(sources: readonly SourceOutput[]): SourceOutput[] {
  const decorated = sources.map((s) => ({
    s,
    t: creationTimeMs(s.creationTimestamp),
    k: tupleKey(s.ref.namespace, s.ref.name, s.ref.kind),
  }));
  decorated.sort((a, b) => (a.t !== b.t ? (a.t < b.t ? -1 : 1) : a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return decorated.map((d) => d.s);
}

function objectId(o: OutputObject): string {
  return tupleKey(o.metadata.namespace, o.metadata.name, o.kind);
}

/**
 * Keeps the first claim of every namespace/name/kind; identical duplicates collapse, others become issues. The
 * result is sorted by namespace, then name, then kind.
 */
function resolveCollisions(sources: readonly SourceOutput[], issues: ConfigIssue[]): OutputObject[] {
  const claimed = new Map<string, { source: SourceOutput; object: OutputObject }>();
  for (const source of claimOrder(sources)) {
    for (const object of source.objects) {
      const id = objectId(object);
      const prev = claimed.get(id);
      if (!prev) {
        claimed.set(id, { source, object });
      } else if (
        prev.source !== source ||
        stableStringify(prev.object.spec) !== stableStringify(object.spec)
      ) {
        const owner = prev.source === source ? 'another port of the same object' : prev.source.key;
        issues.push(
          issue(
            source.ref,
            '',
            `${object.kind} ${object.metadata.namespace}/${object.metadata.name} is already generated for ${owner}; this one is dropped`,
          ),
        );
      }
    }
  }
  const ids = [...claimed.keys()].sort();
  return ids.map((id) => (claimed.get(id) as { object: OutputObject }).object);
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
