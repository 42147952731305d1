/**
 * The Gateway controller of our own waypoint (issue 39), a leader part (`part()`: started on election, drained on
 * loss, kit/runtime.ts). Each run, over the GatewayClasses, Gateways and owned Services its informers hold:
 * - every GatewayClass with `controllerName: aeraki.io/waypoint-controller` gets `Accepted: True`;
 * - every Gateway of such a class is validated (gateway-objects.ts validateGateway); an accepted one gets its
 *   ServiceAccount, Service, Deployment and Secret `W-xds` (owned-objects.ts), applied server-side when they differ
 *   from what this leadership last applied (and again after every periodic resync, which repairs hand edits, and
 *   when an owned Service disappears), and its certificate renewed at half its lifetime (a timer on the Clock);
 * - every Gateway of such a class gets its status (status.ts) and the Events its state calls for, each once
 *   while its cause lasts.
 * A Gateway that is not accepted keeps what it had (its objects are the Gateway's and go with it). Runs are
 * debounced, never overlap, wait for the informers (and the CA Secret's) first list, and check `mayWrite()`
 * before every write (kit/controller-loop.ts, kit/apply.ts).
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { LoopController, loopSettings, type LoopControllerSettings } from '../kit/controller-loop.ts';
import type { KubeInformers, Subscription } from '../kit/kube/informer-hub.ts';
import type { RuntimePart } from '../kit/runtime.ts';
import {
  asSinkError,
  writeRunHandlers,
  type ApplyWrites,
  type WriteFailure,
  type WriteOp,
} from '../kit/write.ts';
import { gatewayKey, type GatewayKey } from '../model/ambient/own-waypoint.ts';
import type { WaypointCoverage, WaypointPrograms } from '../model/ambient/xds.ts';
import { CLUSTER_DOMAIN } from '../model/constants.ts';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.ts';
import type { WaypointCa } from './ca.ts';
import { WaypointCredentials } from './gateway-credentials.ts';
import type { WaypointKubePort } from './gateway-kube.ts';
import {
  classInfoOf,
  gatewayInfoOf,
  isOwnClass,
  reduceClass,
  reduceGateway,
  type GatewayInfo,
} from './gateway-objects.ts';
import { appliedKey, planClass, planGateway, type GatewayPlanInput } from './gateway-plan.ts';
import {
  clusterIpOf,
  gatewayClassesWatch,
  gatewaysWatch,
  ownedServicesWatch,
  reduceOwnedService,
} from './gateway-watches.ts';
import type { OwnedSettings } from './owned-objects.ts';

export interface GatewayRunReport {
  readonly skipped?: 'not-synced';
  readonly gateways: number;
  readonly written: number;
  readonly failures: readonly WriteFailure[];
  readonly interrupted: boolean;
}

const EMPTY: GatewayRunReport = { gateways: 0, written: 0, failures: [], interrupted: false };

/** Debounce defaults: 200 ms quiet, 2 s at most. */
export interface GatewayControllerOptions extends LoopControllerSettings<GatewayRunReport>, OwnedSettings {
  readonly kc: KubeConfig;
  readonly informers: KubeInformers;
  readonly port: WaypointKubePort;
  /** Executes the writes of a run (kit/apply.ts applyWrites, paced by the process's limiter). */
  readonly apply: ApplyWrites;
  readonly ca: WaypointCa;
  readonly trustDomain: string;
  /** The root that verifies the controller's xDS server certificate (every Secret's `ca.crt`). */
  readonly serverRoot: () => string;
  /** Default cluster.local: the Gateway's Hostname address `W.N.svc.<domain>`. */
  readonly clusterDomain?: string;
  readonly programs?: WaypointPrograms;
  readonly coverage?: WaypointCoverage;
  /** Lifetime of a waypoint's client certificate (default 24 h, renewed at half). */
  readonly certLifetimeMs?: number;
}

export class GatewayController extends LoopController<GatewayRunReport> {
  private readonly o: GatewayControllerOptions;
  private readonly clock: Clock;
  private readonly subs: Subscription[];
  private readonly classes: Subscription;
  private readonly gateways: Subscription;
  private readonly services: Subscription;
  private readonly credentials: WaypointCredentials;
  /** What this leadership applied: object key (with the owner's uid) -> content hash. */
  private readonly applied = new Map<string, string>();
  /** Event keys reported and still current. */
  private reported = new Set<string>();
  private renewal: TimerHandle | undefined;
  private wasSynced = false;
  private unsubscribe: (() => void)[] = [];

  constructor(o: GatewayControllerOptions) {
    super({
      ...writeRunHandlers(EMPTY, 'waypoint gateway run'),
      ...loopSettings(o, { quietMs: 200, maxWaitMs: 2000, component: 'waypoint-gateways' }),
      // Runs wait (re-checked every pollMs) for the informers' and the CA Secret's first list.
      isSynced: () => this.synced,
      onResync: () => this.applied.clear(),
    });
    this.o = o;
    this.clock = o.clock ?? systemClock;
    this.credentials = new WaypointCredentials({
      port: o.port,
      ca: o.ca,
      trustDomain: o.trustDomain,
      clock: this.clock,
      logger: this.log,
      ...(o.certLifetimeMs !== undefined ? { lifetimeMs: o.certLifetimeMs } : {}),
    });
    const trigger = {
      upsert: () => this.trigger(),
      delete: () => this.trigger(),
      stateChanged: () => this.syncedChanged(),
    };
    this.classes = o.informers.subscribe(gatewayClassesWatch(o.kc), trigger, { reduce: reduceClass });
    this.gateways = o.informers.subscribe(gatewaysWatch(o.kc), trigger, { reduce: reduceGateway });
    this.services = o.informers.subscribe(
      ownedServicesWatch(o.kc),
      {
        ...trigger,
        delete: (s) => {
          this.forgetOwner(s);
          this.trigger();
        },
      },
      { reduce: reduceOwnedService },
    );
    this.subs = [this.classes, this.gateways, this.services];
    // A new or lost CA (its Secret deleted): the CA is created again and every certificate reissued.
    o.ca.onRoot(() => this.trigger());
    if (o.onRun) this.loop.onRun(o.onRun);
    this.loop.onRun(() => this.armRenewal());
  }

  /** Every informer listed once (a kind not installed counts as listed: no waypoints) and the CA Secret read. */
  get synced(): boolean {
    return this.subs.every((s) => s.synced) && this.o.ca.synced;
  }

  /** The leader part: informers and subscriptions started on election, everything stopped on loss. */
  part(): RuntimePart {
    void this.loop.stop();
    return {
      name: 'waypoint-gateways',
      needLeader: true,
      start: () => this.start(),
      drain: () => this.stop(),
    };
  }

  override start(): void {
    this.applied.clear();
    this.credentials.clear();
    this.reported = new Set();
    for (const s of this.subs) s.start();
    const changed = (keys: readonly GatewayKey[]) => keys.length > 0 && this.trigger();
    if (this.o.programs) this.unsubscribe.push(this.o.programs.subscribe(changed));
    if (this.o.coverage) this.unsubscribe.push(this.o.coverage.subscribe(changed));
    super.start();
  }

  override async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    if (this.renewal) this.clock.clearTimeout(this.renewal);
    this.renewal = undefined;
    await super.stop();
    await Promise.all(this.subs.map((s) => s.stop()));
  }

  protected async runOnce(): Promise<GatewayRunReport> {
    const own = this.classes.objects().map(classInfoOf).filter(isOwnClass);
    const names = new Set(own.map((c) => c.name));
    const gateways = this.gateways
      .objects()
      .map(gatewayInfoOf)
      .filter((g) => names.has(g.className))
      .sort((a, b) => gatewayKey(a.namespace, a.name).localeCompare(gatewayKey(b.namespace, b.name)));
    const ips = new Map(
      this.services.objects().map((s) => [`${s.metadata?.namespace}/${s.metadata?.name}`, clusterIpOf(s)]),
    );
    const now = new Date(this.clock.now()).toISOString();
    const ops: WriteOp[] = [];
    const failures: WriteFailure[] = [];
    for (const c of own) ops.push(...planClass(c, now, this.o.port));
    const events = new Set<string>();
    for (const g of gateways) {
      const input: GatewayPlanInput = {
        gateway: g,
        settings: this.o,
        clusterIP: ips.get(gatewayKey(g.namespace, g.name)),
        clusterDomain: this.o.clusterDomain ?? CLUSTER_DOMAIN,
        programs: this.o.programs,
        coverage: this.o.coverage,
        now,
        reported: this.reported,
      };
      try {
        const plan = await planGateway(input, {
          credential: (x: GatewayInfo) => this.credential(x),
          port: this.o.port,
          applied: this.applied,
          time: () => new Date(this.clock.now()),
        });
        ops.push(...plan.ops);
        for (const k of plan.events) events.add(k);
      } catch (err) {
        const error = asSinkError(`Gateway ${g.namespace}/${g.name}`, err);
        failures.push({ op: 'update', kind: 'Gateway', namespace: g.namespace, name: g.name, error });
        this.log.warn('waypoint Gateway not reconciled', {
          gateway: gatewayKey(g.namespace, g.name),
          error: error.message,
        });
      }
    }
    this.credentials.retain(new Set(gateways.map((g) => gatewayKey(g.namespace, g.name))));
    const owners = new Set(gateways.map((g) => appliedKey(g, '')));
    for (const k of [...this.applied.keys()])
      if (!owners.has(k.slice(0, k.indexOf('|') + 1))) this.applied.delete(k);
    const result = await this.o.apply(ops, {
      concurrency: 4,
      mayWrite: () => this.loop.mayWrite(),
      onWrite: (op, error) => {
        if (error)
          this.log.warn(`waypoint ${op.op} ${op.kind} failed`, {
            namespace: op.namespace,
            name: op.name,
            error: error.message,
          });
      },
    });
    // Events whose cause is gone are forgotten (reported again if it comes back).
    this.reported = new Set([...this.reported].filter((k) => events.has(k)));
    return {
      gateways: gateways.length,
      written: result.created + result.updated,
      failures: [...failures, ...result.failures],
      interrupted: result.interrupted,
    };
  }

  /** An informer's state changed: a run when the controller's synced gate turned (not on every re-watch). */
  private syncedChanged(): void {
    const synced = this.synced;
    if (synced !== this.wasSynced) this.trigger();
    this.wasSynced = synced;
  }

  private credential(g: GatewayInfo) {
    if (!this.loop.mayWrite()) throw new Error('not leading');
    return this.credentials.credential(g);
  }

  /** An owned Service went away: its Gateway's objects are applied again by the next run (appliedKey). */
  private forgetOwner(s: KubernetesObject): void {
    const prefix = `${s.metadata?.namespace}/${s.metadata?.name}@`;
    for (const k of [...this.applied.keys()]) if (k.startsWith(prefix)) this.applied.delete(k);
  }

  private armRenewal(): void {
    if (this.renewal) this.clock.clearTimeout(this.renewal);
    this.renewal = undefined;
    const at = this.credentials.nextRenewal();
    if (at === undefined || this.loop.stopped) return;
    this.renewal = this.clock.setTimeout(
      () => {
        this.renewal = undefined;
        this.trigger();
      },
      Math.max(0, at - this.clock.now()),
    );
  }
}
