/**
 * Feeds the ADS cache (model/ambient/xds.ts WaypointXdsSink) from the translator, as xds-rds/route-source.ts feeds
 * the RDS snapshot: every store event and endpoint change (WaypointTranslator.onDirty) requests a debounced run (a
 * ControllerLoop; default 100 ms quiet, 1 s at most) that calls `update()` and hands the changes to the sink in one
 * `apply`. Nothing is pushed before `isReady()` (the store synced and EndpointsView.synced(): an empty answer before
 * then means "not known yet", and sending it would empty the waypoints' clusters); the first run after it is a full
 * build. Runs on every replica, like RDS.
 */
import { ControllerLoop } from '../kit/controller-loop.ts';
import type { WaypointChange, WaypointXdsSink } from '../model/ambient/xds.ts';
import { formatIssue } from '../model/result.ts';
import { systemClock, type Clock } from '../util/clock.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import type { WaypointTranslator } from './incremental.ts';

export interface WaypointSourceOptions {
  readonly quietMs?: number;
  readonly maxWaitMs?: number;
  /** How often a run waiting for `isReady` checks again (default 500 ms). */
  readonly pollMs?: number;
  readonly clock?: Clock;
  /** True once the store and the endpoints have synced (default: always). */
  readonly isReady?: () => boolean;
  readonly logger: Logger;
}

export class WaypointSource {
  private readonly loop: ControllerLoop<WaypointChange[] | undefined>;
  private unsubscribe: (() => void) | undefined;
  private lastIssues = new Set<string>();
  /** Runs that pushed at least one change. */
  pushes = 0;

  constructor(
    private readonly translator: WaypointTranslator,
    private readonly sink: WaypointXdsSink,
    private readonly options: WaypointSourceOptions,
  ) {
    this.loop = new ControllerLoop<WaypointChange[] | undefined>({
      run: () => new Promise((resolve) => resolve(this.rebuild())),
      failed: (err) => {
        this.options.logger.error('waypoint: cannot translate the bound services', errorFields(err));
        return [];
      },
      skipped: () => undefined,
      classify: (r) => (r === undefined ? 'retry-soon' : 'ok'),
      isSynced: options.isReady,
      quietMs: options.quietMs ?? 100,
      maxWaitMs: options.maxWaitMs ?? 1000,
      pollMs: options.pollMs ?? 500,
      resyncMs: 0,
      retry: { initialMs: 500, maxMs: 30_000 },
      clock: options.clock ?? systemClock,
      logger: options.logger,
    });
  }

  /** Starts listening and requests the first (full) build. */
  start(): void {
    this.loop.start();
    this.unsubscribe ??= this.translator.onDirty(() => this.loop.trigger());
    this.loop.trigger();
  }

  /** Translates what changed and pushes it now (the first call builds everything); returns what was pushed. */
  rebuild(): WaypointChange[] {
    const changes = this.translator.update();
    if (changes.length > 0) {
      this.sink.apply(changes);
      this.pushes++;
    }
    const now = new Set(this.translator.issues().map(formatIssue));
    for (const text of now) if (!this.lastIssues.has(text)) this.options.logger.warn(`waypoint: ${text}`);
    this.lastIssues = now;
    return changes;
  }

  /** Runs a pending rebuild now (when ready). */
  flush(): void {
    if (!(this.options.isReady?.() ?? true)) return;
    if (this.loop.takeRequest()) this.rebuild();
  }

  /** Resolves once no run is pending or in progress (with a manual clock, advance it past the debounce first). */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.loop.stop();
  }
}
