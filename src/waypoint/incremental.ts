/**
 * Our own waypoints' resources, maintained instead of rebuilt (issue 39, "a change to one service recomputes that
 * service's chains, clusters and endpoints"), the way the RDS routes (xds-rds/incremental-routes.ts) and the desired
 * EnvoyFilters (envoyfilter/incremental.ts) are: each Service's and ServiceEntry's translation (translate.ts) is cached
 * with the keys of every input it read (kit/incremental/dependencies.ts through the recording view; its Namespace,
 * Gateway and GatewayClass through kit/incremental/ambient.ts; `ep:` keys for the endpoints it read and `svchost:`
 * keys for the other services it looked up, incremental-hosts.ts). `update` translates again only the services whose
 * inputs changed since the last call (store events, endpoint changes) and returns the WaypointChanges: per Gateway,
 * the listener when the Gateway appeared or went, and the contributions that changed (or moved, or went).
 */
import {
  ChangeTracker,
  DependentUnits,
  objectDepKeys,
  objectOfDepKey,
  type TrackedView,
} from '../kit/incremental/dependencies.ts';
import { KUBERNETES_GATEWAY_KIND, recordingAmbientView } from '../kit/incremental/ambient.ts';
import type { EndpointsView } from '../model/ambient/endpoints.ts';
import { gatewayKey, OWN_WAYPOINT_CLASS, type GatewayKey } from '../model/ambient/own-waypoint.ts';
import type { AmbientView } from '../model/ambient/view.ts';
import type { ServiceContribution, WaypointChange, WaypointCoverage } from '../model/ambient/xds.ts';
import type { Generator } from '../model/generator.ts';
import type { ServiceEntry } from '../model/objects.ts';
import { compareServiceOrder, compareStrings } from '../model/order.ts';
import type { Protocol } from '../model/protocol.ts';
import { dedupeIssues, type ConfigIssue } from '../model/result.ts';
import type { ConfigView } from '../model/view.ts';
import { CoverageIndex } from './incremental-coverage.ts';
import { endpointsDepKey, HostIndex, recordingEndpoints } from './incremental-hosts.ts';
import { ChangeSet } from './incremental-changes.ts';
import { ChainClaims } from './incremental-claims.ts';
import { listenerTemplate } from './listener.ts';
import type { TranslateOptions } from './translate-context.ts';
import { translateService } from './translate.ts';

export interface WaypointTranslatorInputs {
  /** The store (events and lookups). */
  readonly view: TrackedView;
  /** Namespaces, Gateways, GatewayClasses (the store implements it once ambient inputs are read). */
  readonly ambient: AmbientView;
  readonly endpoints: EndpointsView;
  /** The generator of each protocol (envoyfilter/generate-all.ts generatorSet(...).byProtocol). */
  readonly byProtocol: ReadonlyMap<Protocol, Generator>;
  readonly options?: TranslateOptions;
}

/** One service's cached translation. */
interface ServiceUnit {
  readonly source: ServiceEntry;
  readonly gateway: GatewayKey | undefined;
  readonly contribution: ServiceContribution | undefined;
  readonly issues: readonly ConfigIssue[];
  readonly uncarried: readonly string[];
}

const UNIT_KINDS = ['ServiceEntry', 'Service'];
const GATEWAY_KEY_PREFIX = `obj:${KUBERNETES_GATEWAY_KIND}/`;

export class WaypointTranslator {
  private readonly tracker: ChangeTracker;
  private readonly hosts: HostIndex;
  private readonly coverageIndex = new CoverageIndex();
  /** Keys changed outside the tracker (endpoints, hosts) since the last update. */
  private pending = new Set<string>();
  private units: DependentUnits<ServiceUnit> | undefined;
  /** The units before a full build, for the last good contributions of services that fail now. */
  private previous: DependentUnits<ServiceUnit> | undefined;
  /** Services whose unit was computed in this pass. */
  private touched = new Set<string>();
  /** What the sink was given: the Gateways with a listener, and each service's contribution and Gateway. */
  private readonly changes = new ChangeSet();
  /** Who has each filter chain name and destination of a Gateway. */
  private claims = new ChainClaims();
  private readonly reporting = new Map<string, ServiceUnit>();
  /** Where each service's coverage lines are filed. */
  private readonly coveredAt = new Map<string, GatewayKey>();
  private readonly unsubscribe: (() => void)[] = [];
  private readonly dirtyListeners = new Set<() => void>();

  private readonly options: TranslateOptions;

  constructor(private readonly inputs: WaypointTranslatorInputs) {
    this.options = inputs.options ?? {};
    this.tracker = new ChangeTracker(inputs.view);
    this.hosts = new HostIndex(inputs.view.clusterDomain);
    this.unsubscribe.push(
      inputs.view.subscribe((e) => {
        this.hosts.apply(e, this.pending);
        this.dirty();
      }),
      inputs.endpoints.subscribe((owners) => {
        for (const o of owners) this.pending.add(endpointsDepKey(o.kind, o.namespace, o.name));
        this.dirty();
      }),
    );
  }

  /** What the Gateways cannot carry (for their status), as of the last `full` or `update`. */
  get coverage(): WaypointCoverage {
    return this.coverageIndex;
  }

  /** Calls `listener` (synchronously) after each store event or endpoint change; returns the unsubscribe function. */
  onDirty(listener: () => void): () => void {
    this.dirtyListeners.add(listener);
    return () => this.dirtyListeners.delete(listener);
  }

  /**
   * Translates every service again and returns every Gateway's listener and every contribution (and the removal of
   * what the sink holds that is gone): what a sink starting empty needs. A service that fails keeps its last good
   * contribution.
   */
  full(): WaypointChange[] {
    this.tracker.drain();
    this.pending = new Set();
    this.previous = this.units ?? this.previous;
    this.units = new DependentUnits(this.inputs.view, (v, unit, deps) => this.compute(v, unit, deps));
    const services = this.inputs.view.serviceEntries();
    this.hosts.rebuild(services);
    this.changes.startFull();
    this.claims = new ChainClaims();
    this.touched = new Set(this.changes.placedServices().map((id) => `obj:${id}`));
    for (const unit of this.reporting.keys()) this.touched.add(unit);
    for (const id of this.coveredAt.keys()) this.touched.add(`obj:${id}`);
    this.units.update(objectDepKeys(services), () => {});
    this.previous = undefined;
    for (const g of this.ourGateways()) this.changes.listen(g, true);
    return this.finish();
  }

  /**
   * The changes since the last call: only the services whose inputs changed are translated again (everything on the
   * first call). Returns [] when nothing the sink holds changed.
   */
  update(): WaypointChange[] {
    if (this.units === undefined) return this.full();
    const keys = this.tracker.drain();
    for (const k of this.pending) keys.add(k);
    this.pending = new Set();
    this.touched = new Set();
    try {
      this.units.update(this.units.affected(keys, UNIT_KINDS), () => {});
    } catch (err) {
      // A bug (generators' exceptions are issues already): the next call builds everything again.
      this.previous = this.units;
      this.units = undefined;
      throw err;
    }
    for (const k of keys) {
      if (!k.startsWith(GATEWAY_KEY_PREFIX)) continue;
      const [ns = '', name = ''] = k.slice(GATEWAY_KEY_PREFIX.length).split('/');
      const g = this.inputs.ambient.waypoints().gateway(ns, name);
      this.changes.listen(gatewayKey(ns, name), g?.className === OWN_WAYPOINT_CLASS);
    }
    return this.finish();
  }

  /** The issues of the last translation of every service (generators' warnings and errors, clusters without endpoints). */
  issues(): ConfigIssue[] {
    const units = [...this.reporting.values()].sort((a, b) => compareServiceOrder(a.source, b.source));
    return dedupeIssues(units.flatMap((u) => u.issues));
  }

  /** The issues of one service (`<kind>/<namespace>/<name>`, the key of its contribution), as of its last translation. */
  issuesOf(service: string): readonly ConfigIssue[] {
    return this.reporting.get(`obj:${service}`)?.issues ?? [];
  }

  stop(): void {
    this.tracker.stop();
    for (const u of this.unsubscribe) u();
  }

  private dirty(): void {
    for (const l of this.dirtyListeners) l();
  }

  private ourGateways(): GatewayKey[] {
    return this.inputs.ambient
      .waypoints()
      .gateways()
      .filter((g) => g.className === OWN_WAYPOINT_CLASS)
      .map((g) => gatewayKey(g.namespace, g.name));
  }

  private compute(view: ConfigView, unit: string, deps: Set<string>): ServiceUnit | undefined {
    this.touched.add(unit);
    const { kind, namespace, name } = objectOfDepKey(unit);
    const source = view.get(kind === 'Service' ? 'Service' : 'ServiceEntry', namespace, name);
    if (source === undefined) return undefined;
    const { ambient, endpoints, byProtocol } = this.inputs;
    const t = translateService(
      {
        view,
        ambient: recordingAmbientView(ambient, deps),
        endpoints: recordingEndpoints(endpoints, deps),
        byProtocol,
        options: this.options,
        serviceOfHost: (host, ns) => this.hosts.lookup(host, ns, deps),
      },
      source,
    );
    if (!t.keep) return { source, ...t };
    const last = this.units?.get(unit) ?? this.previous?.get(unit);
    return {
      source,
      gateway: last?.gateway ?? t.gateway,
      contribution: last?.contribution,
      issues: t.issues,
      uncarried: last?.uncarried ?? [],
    };
  }

  /**
   * Brings the claims, the published state, the coverage and the issues up to the units touched (and the services
   * whose claims those touched); returns the changes.
   */
  private finish(): WaypointChange[] {
    const ids = new Set<string>();
    for (const unit of [...this.touched].sort(compareStrings)) {
      const now = this.units?.get(unit);
      const id = unit.slice(4);
      ids.add(id);
      for (const other of this.claims.set(id, now?.source, now?.gateway, now?.contribution)) ids.add(other);
      if (now !== undefined && now.issues.length > 0) this.reporting.set(unit, now);
      else this.reporting.delete(unit);
    }
    for (const id of [...ids].sort(compareStrings)) {
      const now = this.units?.get(`obj:${id}`);
      const { contribution, lost } = this.claims.resolve(id, now?.contribution);
      this.changes.place(id, now?.gateway, contribution);
      const lines = lost.length > 0 ? [...(now?.uncarried ?? []), ...lost] : (now?.uncarried ?? []);
      this.coverageIndex.set(id, this.coveredAt.get(id), now?.gateway, lines);
      if (now?.gateway !== undefined) this.coveredAt.set(id, now.gateway);
      else this.coveredAt.delete(id);
    }
    this.touched = new Set();
    const out = this.changes.take(listenerTemplate());
    this.coverageIndex.publish();
    return out;
  }
}
