import { errorFields, type Logger } from '../util/logger.ts';

/**
 * One part of a process (a server, a controller, a set of watches). `start()` either completes or throws having
 * undone its own partial work: a part whose start threw is not started and is never drained nor stopped.
 * `drain()` (optional) runs in the first phase of a stop: stop taking work, stop writing, end streams.
 * `stop()` (optional) runs in the second phase: release what is left (watches, listeners, timers).
 */
export interface Part {
  readonly name: string;
  start?(): Promise<void> | void;
  drain?(): Promise<void> | void;
  stop?(): Promise<void> | void;
}

/**
 * Starts parts in groups and stops what started in reverse.
 *
 * - `start(group)`: the parts of a group start concurrently; they count as started in the order given. When one
 *   throws, every part started so far (this group and earlier ones) is stopped as by `stop()`, and the error of the
 *   first failing part in the group's order is rethrown, not logged (stop errors are logged, never replace it).
 * - `stop()`: drains every started part in reverse start order, then stops them in reverse start order. A failing
 *   step is logged and the others still run; the returned promise then rejects with the first such error. Runs
 *   once: later calls return the same promise. `start()` after the stop began throws.
 */
export class Lifecycle {
  readonly #log: Logger;
  readonly #started: Part[] = [];
  #stopping: Promise<void> | undefined;

  constructor(logger: Logger) {
    this.#log = logger;
  }

  /** Starts each group after the previous one; see the class comment. */
  async startGroups(groups: readonly (readonly Part[])[]): Promise<void> {
    for (const group of groups) await this.start(...group);
  }

  /** Starts one group; see the class comment. */
  async start(...group: Part[]): Promise<void> {
    if (this.#stopping) throw new Error(`cannot start ${names(group)}: the lifecycle is stopping`);
    const results = await Promise.allSettled(group.map(async (p) => p.start?.()));
    let failure: { part: Part; error: unknown } | undefined;
    results.forEach((r, i) => {
      const part = group[i]!;
      if (r.status === 'fulfilled') this.#started.push(part);
      else failure ??= { part, error: r.reason };
    });
    if (!failure) return;
    this.#log.debug('start failed, stopping what started', { part: failure.part.name }); // the caller reports it
    await this.stop().catch(() => {}); // each failing stop is logged; the start error is the one reported
    throw failure.error;
  }

  /** The names of the started parts, in start order (for tests and logs). */
  started(): string[] {
    return this.#started.map((p) => p.name);
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stopAll();
    return this.#stopping;
  }

  async #stopAll(): Promise<void> {
    const parts = [...this.#started].reverse();
    const errors: unknown[] = [];
    for (const phase of ['drain', 'stop'] as const) {
      for (const part of parts) {
        try {
          await part[phase]?.();
        } catch (err) {
          errors.push(err);
          this.#log.error(`${phase} failed`, { part: part.name, ...errorFields(err) });
        }
      }
    }
    this.#started.length = 0;
    if (errors.length > 0) throw errors[0];
  }
}

function names(parts: readonly Part[]): string {
  return parts.map((p) => p.name).join(', ');
}
