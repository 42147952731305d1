/**
 * A typed topic: the latest value of something several parts react to, and who reacts. `publish` keeps the value
 * with the Clock time it was published at and calls the subscribers synchronously, in subscription order, before
 * it returns; a subscriber that throws is logged and the others still run (as ControllerLoop's run listeners).
 * No queue, no replay: a subscriber added later reads `latest()` itself if it needs the current value.
 *
 * A subscriber that publishes (to this topic or another) does so synchronously, inside the outer publish: keep
 * reactions to "note and trigger" so the flow stays readable.
 */
import type { Clock } from '../util/clock.ts';
import { errorFields, type Logger } from '../util/logger.ts';

/** A published value and when (ms since the epoch, the topic's Clock). */
export interface Published<T> {
  readonly value: T;
  readonly at: number;
}

export type TopicSubscriber<T> = (value: T, at: number) => void;

export interface TopicOptions {
  /** Named in the log line of a subscriber that threw. */
  readonly name: string;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class Topic<T> {
  private last: Published<T> | undefined;
  /** One entry per subscription (the same function subscribed twice is called twice). */
  private subscribers: { readonly fn: TopicSubscriber<T> }[] = [];

  constructor(private readonly o: TopicOptions) {}

  get name(): string {
    return this.o.name;
  }

  publish(value: T): void {
    const at = this.o.clock.now();
    this.last = { value, at };
    // A subscription added or removed while publishing takes effect from the next publish.
    for (const s of [...this.subscribers]) {
      try {
        s.fn(value, at);
      } catch (err) {
        this.o.logger.error('topic subscriber threw', { topic: this.o.name, ...errorFields(err) });
      }
    }
  }

  /** The last value published and when; undefined before the first publish. */
  latest(): Published<T> | undefined {
    return this.last;
  }

  /** Calls `fn` on every later publish; returns the unsubscribe function (idempotent). */
  subscribe(fn: TopicSubscriber<T>): () => void {
    const entry = { fn };
    this.subscribers = [...this.subscribers, entry];
    return () => {
      this.subscribers = this.subscribers.filter((s) => s !== entry);
    };
  }
}
