/** An Elector (kit/runtime.ts) the test drives: `elect()` and `lose()` fire the runtime's callbacks. */
import type { Elector, LeadershipCallbacks } from '../../src/kit/runtime.ts';

export class FakeElector implements Elector {
  leading = false;
  private callbacks: LeadershipCallbacks | undefined;

  /** `events`: `start`, `stop`, `elected`, `lost` are pushed as they happen. */
  constructor(readonly events: string[] = []) {}

  start(callbacks: LeadershipCallbacks): void {
    this.events.push('start');
    this.callbacks = callbacks;
  }

  stop(): Promise<void> {
    this.events.push('stop');
    if (this.leading) this.lose();
    this.callbacks = undefined;
    return Promise.resolve();
  }

  isLeader(): boolean {
    return this.leading;
  }

  elect(): void {
    this.leading = true;
    this.events.push('elected');
    this.callbacks?.onStartedLeading();
  }

  lose(): void {
    this.leading = false;
    this.events.push('lost');
    this.callbacks?.onStoppedLeading();
  }
}
