/**
 * The leader parts of a runtime (kit/runtime.ts): started in registration order on election, drained and stopped
 * in reverse on loss, started again on the next election. Transitions are serialised: a start sequence and the stop
 * of a loss never overlap, except for the drains of a loss, which are called at once (see `lose`).
 */
import { errorFields, type Logger } from '../util/logger.ts';
import type { Part } from './lifecycle.ts';

export class LeaderGroup {
  readonly #log: Logger;
  readonly #parts: Part[] = [];
  readonly #started: Part[] = [];
  /** Bumped by every election and every loss: a start sequence of an older term stops starting. */
  #term = 0;
  #leading = false;
  #chain: Promise<void> = Promise.resolve();

  constructor(logger: Logger) {
    this.#log = logger;
  }

  /** True between `elect()` and `lose()`. */
  get leading(): boolean {
    return this.#leading;
  }

  /** The started leader parts, in start order. */
  started(): string[] {
    return this.#started.map((p) => p.name);
  }

  /** Registers parts; while leading they start after the parts registered before them. */
  add(parts: readonly Part[]): Promise<Error | undefined> {
    this.#parts.push(...parts);
    return this.#leading ? this.#startTerm() : Promise.resolve(undefined);
  }

  /**
   * Starts every registered part not started yet, one after the other; resolves with the first start error (the
   * parts of this term started so far are then drained and stopped, and leading ends) or undefined.
   */
  elect(): Promise<Error | undefined> {
    this.#leading = true;
    this.#term++;
    return this.#startTerm();
  }

  /**
   * Ends leading: every started part's `drain()` is called synchronously, in reverse start order, before this
   * returns (a controller's stop closes its write gate at once); they are awaited together, then each part's
   * `stop()` runs in reverse order. The returned promise resolves when all is done (errors are logged).
   */
  lose(): Promise<void> {
    this.#leading = false;
    this.#term++;
    const stopping = this.#stopStarted(); // the drains are called now
    const done = this.#chain.then(() => stopping);
    this.#chain = done;
    return done;
  }

  /** Resolves once no transition is in progress. */
  settled(): Promise<void> {
    return this.#chain;
  }

  #startTerm(): Promise<Error | undefined> {
    const term = this.#term;
    const run = this.#chain.then(() => this.#startAll(term));
    this.#chain = run.then(() => undefined);
    return run;
  }

  async #startAll(term: number): Promise<Error | undefined> {
    for (const part of this.#parts) {
      if (term !== this.#term) return undefined;
      if (this.#started.includes(part)) continue;
      try {
        await part.start?.();
      } catch (err) {
        this.#log.error('leader part failed to start', { part: part.name, ...errorFields(err) });
        if (term === this.#term) {
          this.#leading = false;
          this.#term++;
          await this.#stopStarted(); // what this term started
        }
        return err instanceof Error ? err : new Error(String(err));
      }
      if (term !== this.#term) {
        // Leadership ended while this part started: the loss did not see it, so it stops here.
        await this.#step(part, 'drain');
        await this.#step(part, 'stop');
        return undefined;
      }
      this.#started.push(part);
    }
    return undefined;
  }

  /** Calls every started part's drain now (reverse order), then awaits them and stops each in reverse order. */
  #stopStarted(): Promise<void> {
    const parts = this.#started.splice(0).reverse();
    const drains = parts.map((p) => this.#step(p, 'drain'));
    return (async () => {
      await Promise.all(drains);
      for (const p of parts) await this.#step(p, 'stop');
    })();
  }

  async #step(part: Part, phase: 'drain' | 'stop'): Promise<void> {
    try {
      await part[phase]?.();
    } catch (err) {
      this.#log.error(`${phase} failed`, { part: part.name, ...errorFields(err) });
    }
  }
}
