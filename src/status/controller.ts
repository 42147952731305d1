/**
 * Status controller: writes `status.conditions` and `status.observedGeneration` of the Aeraki objects and creates
 * Events for rejected objects, generation errors, held output and conflicts (plan.ts says what), so config problems
 * show where users look (`kubectl get metarouters`, `kubectl describe`).
 *
 * Each run reads the Aeraki objects as the API server holds them (their generation and current status are the
 * truth, so a restart or a new leader writes nothing that is already there; the port answers from its watch-fed
 * cache once synced, and the run after each periodic resync lists for real), plans against the store and the last
 * generation issues (`input`), and writes only the statuses that differ (merge patch of `/status`) and the
 * Events not reported yet. The plan is kept from run to run (planner.ts): after the first list a run reads only the
 * objects changed since (the port's `changes()`) and plans again only the targets whose inputs changed, so a run
 * with nothing changed plans nothing. An Event is reported once per object, reason and note while the problem lasts; when
 * it goes away and comes back, it is reported again.
 *
 * Driving it (src/app/kube-parts.ts builds it, a leader part: started on election, stopped on loss;
 * src/app/serve-topics.ts subscribes it to serve's topics): call `trigger()` on every store change and after each
 * generation pass; runs are debounced (`quietMs`, at most `maxWaitMs` after the first trigger: this is the rate
 * limit), never overlap (kit/controller-loop.ts), are skipped while `isSynced()` is false, and `mayWrite()` (not
 * stopped) is checked before every write.
 */
import { systemClock, type Clock } from '../util/clock.ts';
import { LoopController, loopSettings, type LoopControllerSettings } from '../kit/controller-loop.ts';
import { errorFields } from '../util/logger.ts';
import {
  asSinkError,
  writeRunHandlers,
  type ApplyWrites,
  type SinkError,
  type WriteFailure,
  type WriteOp,
} from '../kit/write.ts';
import type { StatusPort } from './kube.ts';
import { newEvents } from './plan.ts';
import { StatusPlanner, type StatusInputs } from './planner.ts';
import { Slicer, SlicesStopped, type SliceOptions } from '../util/slices.ts';
import type { EventSpec } from './types.ts';

export type { StatusInputs } from './planner.ts';

export interface StatusRunReport {
  readonly skipped?: 'not-synced';
  /** Statuses written, and left alone because they were current. */
  readonly written: number;
  readonly unchanged: number;
  /** Events created in this run. */
  readonly events: number;
  readonly failures: readonly WriteFailure[];
  readonly listError?: SinkError;
  readonly interrupted: boolean;
}

const EMPTY: StatusRunReport = { written: 0, unchanged: 0, events: 0, failures: [], interrupted: false };

/** Debounce defaults: 1 s quiet, 10 s at most. */
export interface StatusControllerOptions extends LoopControllerSettings<StatusRunReport> {
  readonly port: StatusPort;
  /** Executes the writes of a run (kit/apply.ts applyWrites). */
  readonly apply: ApplyWrites;
  /** Read once per run. */
  readonly inputs: () => StatusInputs;
  /** How the plan yields to the loop (util/slices.ts; tests inject a clock and a yield). */
  readonly slices?: SliceOptions;
}

interface StatusWrite extends WriteOp {
  readonly event?: EventSpec;
}

export class StatusController extends LoopController<StatusRunReport> {
  private readonly o: StatusControllerOptions;
  private readonly clock: Clock;
  /** Keys of the Events created and still describing a current problem. */
  private reported = new Set<string>();
  /** `<kind or Event>|<HTTP code>` of failed writes the API server answered, warned once until one succeeds. */
  private readonly answered = new Set<string>();
  /** `pending`: the next run lists from the API server (set by the periodic resync until a list succeeds). */
  private readonly resync: { pending: boolean };
  /** The plan kept from run to run: only what changed is planned again (planner.ts). */
  private readonly planner = new StatusPlanner();
  /** False until a list succeeded since the start: the port's changes are read only after one. */
  private listed = false;

  constructor(options: StatusControllerOptions) {
    const clock = options.clock ?? systemClock;
    const resync = { pending: false };
    super({
      ...writeRunHandlers(EMPTY, 'status run'),
      ...loopSettings(options, { quietMs: 1000, maxWaitMs: 10_000, component: 'status' }),
      onResync: () => {
        resync.pending = true;
      },
    });
    this.o = options;
    this.clock = clock;
    this.resync = resync;
    this.loop.onRun((r) => {
      if (r.listError) this.log.warn('status: listing Aeraki objects failed', errorFields(r.listError));
    });
    if (options.onRun) this.loop.onRun(options.onRun);
  }

  /** Starts the periodic resync and schedules a run, which lists the targets. */
  override start(): void {
    this.listed = false;
    super.start();
  }

  /**
   * The targets as the API server holds them into the planner: the port's changes since the last list where it
   * tracks them (its watch-fed cache), else a list (the first run, the periodic resync: `fresh`).
   */
  private async readTargets(): Promise<SinkError | undefined> {
    const fresh = this.resync.pending;
    const changes = this.listed && !fresh ? this.o.port.changes?.() : undefined;
    if (changes) {
      this.planner.changed(changes);
      return undefined;
    }
    try {
      this.planner.listed(await this.o.port.list({ fresh }), fresh);
      this.resync.pending = false;
      this.listed = true;
      return undefined;
    } catch (err) {
      return asSinkError('list Aeraki objects', err);
    }
  }

  protected async runOnce(): Promise<StatusRunReport> {
    const listError = await this.readTargets();
    if (listError) return { ...EMPTY, listError };
    const now = new Date(this.clock.now());
    // In slices that yield to the loop (a full plan of 5,000 MetaRouters, or a resync's check of each); a stop
    // during a yield abandons the run before any write.
    const slicer = new Slicer({ ...this.o.slices, stopped: () => this.loop.stopped });
    let plan;
    try {
      plan = await this.planner.planSliced(
        this.o.inputs(),
        now.toISOString().replace(/\.\d+Z$/, 'Z'),
        slicer,
      );
    } catch (err) {
      if (err instanceof SlicesStopped) return { ...EMPTY, interrupted: true };
      throw err;
    }
    const current = new Set(plan.events.map((e) => e.key));
    for (const key of this.reported) if (!current.has(key)) this.reported.delete(key);
    const port = this.o.port;
    const writes: StatusWrite[] = [
      ...plan.patches.map((p) => ({
        op: 'update' as const,
        ...p.target.ref,
        write: () => port.patchStatus(p),
      })),
      ...newEvents(plan.events, this.reported).map((event) => ({
        op: 'create' as const,
        kind: `Event ${event.reason} on ${event.ref.kind}`,
        namespace: event.ref.namespace,
        name: event.ref.name,
        event,
        write: () => port.createEvent(event, now),
      })),
    ];
    const result = await this.o.apply(writes, {
      concurrency: 4,
      mayWrite: () => this.loop.mayWrite(),
      onWrite: (op, error) => this.wrote(op, error),
    });
    return {
      ...EMPTY,
      written: result.updated,
      unchanged: this.planner.size - plan.patches.length,
      events: result.created,
      failures: result.failures,
      interrupted: result.interrupted,
    };
  }

  private wrote(op: StatusWrite, error: SinkError | undefined): void {
    const fields = { kind: op.kind, namespace: op.namespace, name: op.name };
    const what = op.event ? 'Event' : op.kind;
    if (error) {
      const message = op.event ? 'creating an Event failed' : 'status write failed';
      if (error.code === undefined) {
        this.log.warn(message, { ...fields, ...errorFields(error) });
        return;
      }
      // The API server answered: its status says all (no stack). Warned once per kind and code while it lasts, as
      // a refused run is retried with backoff (kit/write.ts classifyWriteRun) and would repeat it per object.
      const key = `${what}|${error.code}`;
      const level = this.answered.has(key) ? 'debug' : 'warn';
      this.answered.add(key);
      this.log[level](message, { ...fields, error: error.message, code: error.code, reason: error.reason });
      return;
    }
    for (const key of this.answered) if (key.startsWith(`${what}|`)) this.answered.delete(key);
    if (op.event) this.reported.add(op.event.key);
    else this.log.info('wrote status', fields);
  }
}
