/**
 * The complete desired output for the current config (spec aeraki-core.md 6.4, 6.5; deviations D4, D6, D7):
 * every port of every ServiceEntry goes to the generator of its own protocol; a ServiceEntry any of whose
 * ports failed renders nothing (its source key goes into failedSources, so a reconciler keeps what it wrote
 * before); so does a ServiceEntry with a held host (ConfigView.isHostHeld: an invalid VirtualService or
 * DestinationRule of its own namespace without a valid version binds it), which renders nothing; then gateway
 * mode, where a held Gateway (ConfigView.isGatewayHeld: an invalid MetaRouter without a valid version binds it, of
 * the Gateway's own namespace, or of another while no valid MetaRouter binds the Gateway) renders nothing and keeps
 * its output the same way; each held source that would have output gets a warning naming the invalid objects
 * holding it (model/held.ts). Otherwise an invalid object never holds a source of another namespace, and an
 * invalid MetaRouter never holds a ServiceEntry: such a source is rendered from what it is now, with the last valid version of each object it depends on (the store keeps it), and without an object
 * that has none (DESIGN habit 17). Pure: no I/O, no logging, no clock; never throws on input.
 *
 * Warnings (they never fail a source): a named targetPort that cannot be resolved here (D16); a ServiceEntry without
 * addresses gets inbound filters only; ports whose protocol nothing handles are listed apart (unhandledPorts), so
 * `serve` can count them instead of logging them;
 * conflicts (model/conflicts/conflicts.ts: MetaRouters, ApplicationProtocols, VirtualServices, DestinationRules, Gateway ports)
 * come last.
 */
import { resolveClaims, type LostClaim, type SourceClaims } from '../model/claims.ts';
import { configConflicts } from '../model/conflicts/conflicts.ts';
import type { FilterDraft, Generator } from '../model/generator.ts';
import { heldIssue, holdersOf } from '../model/held.ts';
import { sourceKey } from '../model/names.ts';
import type { Gateway, OutputObject, ServiceEntry } from '../model/objects.ts';
import { compareStrings } from '../model/order.ts';
import { protocolNames, protocolSegment, type Protocol, type ProtocolNames } from '../model/protocol.ts';
import { dedupeIssues, issue, ok, refOf, warning, type ConfigIssue } from '../model/result.ts';
import type { ConfigView } from '../model/view.ts';
import { stableStringify } from '../util/json.ts';
import { gatewayContexts, sidecarContexts } from './context.ts';
import { guarded } from '../model/guarded.ts';
import { unresolvedTargetPortWarning } from './inbound-ports.ts';
import { placeDraft, placeGatewayDraft, placementNamespaces, sourceAnnotations } from './placement.ts';
import { waypointObjects, type WaypointOptions } from './waypoint.ts';
import { noAddressWarning } from './no-address.ts';

/** Waypoint filters (WaypointOptions) are written only with `waypointFilters` and `ambient`: without, output is as before. */
export interface GenerateOptions extends WaypointOptions {
  /** Aeraki's --enable-envoy-filter-namespace-scope: filters without exportTo go to the ServiceEntry namespace. */
  readonly namespaceScope: boolean;
  /**
   * The names port names select protocols by (plugins/registry.ts createProtocolNames: the plugins' and those
   * recognised with no plugin), for the unhandled-port warnings; absent: the generators' own protocols.
   */
  readonly protocolNames?: ProtocolNames;
}

export interface GenerateOutput {
  /** EnvoyFilters and gateway VirtualServices, sorted by namespace, then name, then kind. */
  readonly objects: OutputObject[];
  /** Every problem found, deduplicated, in generation order. */
  readonly issues: ConfigIssue[];
  /** Sources (`ServiceEntry/<ns>/<name>`, `Gateway/<ns>/<name>`) whose generation failed: keep their old output. */
  readonly failedSources: ReadonlySet<string>;
  /** Ports that select no generator although their name asks for a protocol, in ServiceEntry, then port order. */
  readonly unhandledPorts: readonly UnhandledPort[];
  /**
   * The conflict warnings of the pass (configConflicts order), also among `issues`: whoever else needs them in
   * the same pass (routes, status) takes them from here instead of computing them again.
   */
  readonly conflicts: readonly ConfigIssue[];
}

/**
 * A port named after a protocol that is recognised but has no generator (`tcp-mongo`, `tcp-mysql`), or named
 * `tcp-<segment>` where the segment is no known protocol (Aeraki ignores both silently; spec aeraki-periphery 1.1).
 */
export interface UnhandledPort {
  /** The recognised protocol, or `unknown` for a `tcp-<segment>` name: a small fixed set, fit for a metric label. */
  readonly protocol: Protocol | 'unknown';
  /** The warning to show, at `spec.ports[<i>].name`. */
  readonly warning: ConfigIssue;
}

/** What generated objects come from: a ServiceEntry (sidecar filters) or a Gateway (gateway mode). */
export type SourceObject = ServiceEntry | Gateway;

export function keyOf(source: SourceObject): string {
  return sourceKey(source.kind, source.metadata.namespace, source.metadata.name);
}

function generatorsByProtocol(generators: readonly Generator[]): Map<Protocol, Generator> {
  const map = new Map<Protocol, Generator>();
  for (const g of generators) for (const p of g.protocols) if (!map.has(p)) map.set(p, g);
  return map;
}

/** The unhandled ports of one ServiceEntry. */
function unhandledPortsOf(se: ServiceEntry, set: GeneratorSet): UnhandledPort[] {
  const { byProtocol, handled, names } = set;
  const ref = refOf(se);
  const out: UnhandledPort[] = [];
  se.spec.ports.forEach((port, i) => {
    const path = `spec.ports[${i}].name`;
    if (hasGenerator(byProtocol, port.name)) return;
    const protocol = names.detect(port.name);
    if (protocol !== undefined) {
      const message = `port "${port.name}" names ${protocol}, which is recognised but not handled: its traffic stays plain TCP`;
      out.push({ protocol, warning: warning(ref, path, message) });
      return;
    }
    const segment = names.unknownTcpSegment(port.name);
    if (segment === undefined) return;
    const message = `port "${port.name}": "${segment}" is not a known protocol (handled: ${handled}): its traffic stays plain TCP`;
    out.push({
      protocol: 'unknown',
      warning: { ...warning(ref, path, message), rule: 'port-unknown-segment' },
    });
  });
  return out;
}

/** The objects of one ServiceEntry, or undefined when it failed (its issues are in `issues`). */
function generateServiceEntry(
  view: ConfigView,
  byProtocol: Map<Protocol, Generator>,
  options: GenerateOptions,
  se: ServiceEntry,
  issues: ConfigIssue[],
): OutputObject[] | undefined {
  const ref = refOf(se);
  const host = se.spec.hosts[0];
  if (host === undefined || host === '') {
    issues.push(issue(ref, 'spec.hosts', 'no hosts: nothing is generated for this ServiceEntry'));
    return undefined;
  }
  const contexts = sidecarContexts(view, se, host, byProtocol);
  const drafts: FilterDraft[] = [];
  let failed = false;
  for (const ctx of contexts) {
    const generator = byProtocol.get(ctx.protocol);
    if (!generator) continue;
    const unresolved = unresolvedTargetPortWarning(view, ctx);
    if (unresolved) issues.push(unresolved);
    const result = guarded(ref, generator, () => generator.generateSidecar(ctx));
    issues.push(...result.issues);
    if (result.ok) drafts.push(...result.value);
    else failed = true;
  }
  if (failed) return undefined;
  if (se.spec.addresses.length === 0 && contexts.some((ctx) => byProtocol.has(ctx.protocol))) {
    issues.push(noAddressWarning(se));
  }
  const metaRouter = contexts[0]?.metaRouter;
  const namespaces = placementNamespaces(se, metaRouter, view.rootNamespace, options.namespaceScope);
  const annotations = sourceAnnotations(keyOf(se));
  const objects: OutputObject[] = [];
  for (const draft of drafts) for (const ns of namespaces) objects.push(placeDraft(draft, ns, annotations));
  const waypoint = waypointObjects(view, byProtocol, options, se, annotations, issues);
  if (waypoint === undefined) return undefined;
  objects.push(...waypoint);
  return objects;
}

/** The objects of one Gateway, or undefined when it failed (its issues are in `issues`). */
function generateGateway(
  view: ConfigView,
  generator: Generator,
  gw: Gateway,
  issues: ConfigIssue[],
): OutputObject[] | undefined {
  const ref = refOf(gw);
  const annotations = sourceAnnotations(keyOf(gw));
  const objects: OutputObject[] = [];
  let failed = false;
  for (const ctx of gatewayContexts(view, gw)) {
    const result = guarded(ref, generator, () => generator.generateGateway?.(ctx) ?? ok([]));
    issues.push(...result.issues);
    if (result.ok) objects.push(...result.value.map((d) => placeGatewayDraft(d, annotations)));
    else failed = true;
  }
  return failed ? undefined : objects;
}

/** The key objects claim: two objects collide when namespace, name and kind are equal. */
export function claimKey(o: OutputObject): string {
  return `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`;
}

/** Output order: namespace, then name, then kind. */
export function compareOutput(a: OutputObject, b: OutputObject): number {
  return (
    compareStrings(a.metadata.namespace, b.metadata.namespace) ||
    compareStrings(a.metadata.name, b.metadata.name) ||
    compareStrings(a.kind, b.kind)
  );
}

/**
 * The issue of a claim that lost (D6), or undefined when it repeats its winner from the same source: the same
 * object generated for two ports of one service collapses silently.
 */
export function lostClaimIssue(lost: LostClaim<SourceObject, OutputObject>): ConfigIssue | undefined {
  const { value: object, source, winner } = lost;
  const sameSource = winner.source === source;
  if (sameSource && stableStringify(winner.value.spec) === stableStringify(object.spec)) return undefined;
  const owner = sameSource ? 'another port of the same object' : keyOf(winner.source);
  const name = `${object.metadata.namespace}/${object.metadata.name}`;
  return issue(
    refOf(source),
    '',
    `${object.kind} ${name} is already generated for ${owner}; this one is dropped`,
  );
}

/** True when one of the ServiceEntry's hosts is held (ConfigView.isHostHeld). */
export function isHeld(view: ConfigView, se: ServiceEntry): boolean {
  return se.spec.hosts.some((h) => view.isHostHeld(h, se.metadata.namespace));
}

/** The generators of a pass, looked up by protocol; `handled` lists their protocols for messages. */
export interface GeneratorSet {
  readonly byProtocol: Map<Protocol, Generator>;
  readonly handled: string;
  /** The names port names select protocols by: those of the generators and any others recognised. */
  readonly names: ProtocolNames;
  /** The generator of gateway mode (the MetaProtocol one), when it has generateGateway. */
  readonly gateway: Generator | undefined;
}

/** `names`: GenerateOptions.protocolNames; absent, the generators' own protocols. */
export function generatorSet(generators: readonly Generator[], names?: ProtocolNames): GeneratorSet {
  const byProtocol = generatorsByProtocol(generators);
  const handled = [...byProtocol.keys()].sort(compareStrings).join(', ');
  const metaprotocol = byProtocol.get('metaprotocol');
  return {
    byProtocol,
    handled,
    names: names ?? protocolNames(byProtocol.keys()),
    gateway: metaprotocol?.generateGateway ? metaprotocol : undefined,
  };
}

/** True when the protocol a port name asks for has a generator. */
function hasGenerator(byProtocol: Map<Protocol, Generator>, portName: string): boolean {
  const protocol = protocolSegment(portName);
  return protocol !== undefined && byProtocol.has(protocol);
}

/** What one source generated. */
export interface SourceOutput {
  /** Undefined when the source failed or is held: whoever wrote its output before keeps it. */
  readonly objects: OutputObject[] | undefined;
  readonly issues: ConfigIssue[];
  readonly unhandledPorts: UnhandledPort[];
}

/** The output of one ServiceEntry or Gateway (a Gateway only when `set.gateway` is defined). */
export function generateSource(
  view: ConfigView,
  set: GeneratorSet,
  options: GenerateOptions,
  source: SourceObject,
): SourceOutput {
  const issues: ConfigIssue[] = [];
  if (source.kind === 'Gateway') {
    if (view.isGatewayHeld(source.metadata.namespace, source.metadata.name)) {
      if (set.gateway) issues.push(heldIssue(source, holdersOf(view, source)));
      return { objects: undefined, issues, unhandledPorts: [] };
    }
    const objects = set.gateway ? generateGateway(view, set.gateway, source, issues) : [];
    return { objects, issues, unhandledPorts: [] };
  }
  const unhandledPorts = unhandledPortsOf(source, set);
  if (isHeld(view, source)) {
    if (source.spec.ports.some((p) => hasGenerator(set.byProtocol, p.name))) {
      issues.push(heldIssue(source, holdersOf(view, source)));
    }
    return { objects: undefined, issues, unhandledPorts };
  }
  const objects = generateServiceEntry(view, set.byProtocol, options, source, issues);
  return { objects, issues, unhandledPorts };
}

/**
 * Every output object of `view`. `conflicts` is configConflicts(view), computed here unless the caller has it
 * already for this pass.
 */
export function generateAll(
  view: ConfigView,
  generators: readonly Generator[],
  options: GenerateOptions,
  conflicts: readonly ConfigIssue[] = configConflicts(view),
): GenerateOutput {
  const set = generatorSet(generators, options.protocolNames);
  const issues: ConfigIssue[] = [];
  const failed = new Set<string>();
  const claims: SourceClaims<SourceObject, OutputObject>[] = [];
  const unhandledPorts: UnhandledPort[] = [];
  const sources: readonly SourceObject[] = set.gateway
    ? [...view.serviceEntries(), ...view.gateways()]
    : view.serviceEntries();
  for (const source of sources) {
    const out = generateSource(view, set, options, source);
    unhandledPorts.push(...out.unhandledPorts);
    issues.push(...out.issues);
    if (out.objects) claims.push({ source, items: out.objects });
    else failed.add(keyOf(source));
  }
  const { winners, lost } = resolveClaims(claims, claimKey);
  for (const l of lost) {
    const dropped = lostClaimIssue(l);
    if (dropped) issues.push(dropped);
  }
  issues.push(...conflicts);
  return {
    objects: winners.sort(compareOutput),
    issues: dedupeIssues(issues),
    failedSources: failed,
    unhandledPorts,
    conflicts,
  };
}
