import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Topic } from '../../src/kit/topic.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { recordingLogger, type LogRecord } from '../support/recording-logger.ts';

function topic(records: LogRecord[] = []): { t: Topic<string>; clock: ManualClock } {
  const clock = new ManualClock(1000);
  return { t: new Topic<string>({ name: 'words', clock, logger: recordingLogger(records) }), clock };
}

describe('Topic', () => {
  it('keeps the latest value with the Clock time it was published at', () => {
    const { t, clock } = topic();
    assert.equal(t.latest(), undefined);
    t.publish('a');
    assert.deepEqual(t.latest(), { value: 'a', at: 1000 });
    clock.advance(250);
    t.publish('b');
    assert.deepEqual(t.latest(), { value: 'b', at: 1250 });
  });

  it('calls subscribers synchronously, in subscription order, with the value and the time', () => {
    const { t } = topic();
    const calls: string[] = [];
    t.subscribe((v, at) => calls.push(`1:${v}@${at}`));
    t.subscribe((v) => calls.push(`2:${v}`));
    t.publish('x');
    assert.deepEqual(calls, ['1:x@1000', '2:x']);
  });

  it('does not replay the latest value to a later subscriber', () => {
    const { t } = topic();
    t.publish('old');
    const calls: string[] = [];
    t.subscribe((v) => calls.push(v));
    assert.deepEqual(calls, []);
    t.publish('new');
    assert.deepEqual(calls, ['new']);
  });

  it('logs a throwing subscriber and still calls the others', () => {
    const records: LogRecord[] = [];
    const { t } = topic(records);
    const calls: string[] = [];
    t.subscribe(() => {
      throw new Error('boom');
    });
    t.subscribe((v) => calls.push(v));
    t.publish('x');
    assert.deepEqual(calls, ['x']);
    const errors = records.filter((r) => r.level === 'error');
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.message, 'topic subscriber threw');
    assert.equal(errors[0]?.fields['topic'], 'words');
    assert.equal(errors[0]?.fields['error'], 'boom');
  });

  it('unsubscribe stops the calls, is idempotent, and leaves other subscriptions of the same function', () => {
    const { t } = topic();
    const calls: string[] = [];
    const fn = (v: string) => calls.push(v);
    const off = t.subscribe(fn);
    t.subscribe(fn);
    t.publish('a');
    off();
    off();
    t.publish('b');
    assert.deepEqual(calls, ['a', 'a', 'b']);
  });

  it('a subscription added or removed while publishing takes effect from the next publish', () => {
    const { t } = topic();
    const calls: string[] = [];
    let offSecond = (): void => {};
    t.subscribe((v) => {
      calls.push(`1:${v}`);
      offSecond();
      t.subscribe((w) => calls.push(`late:${w}`));
    });
    offSecond = t.subscribe((v) => calls.push(`2:${v}`));
    t.publish('a');
    assert.deepEqual(calls, ['1:a', '2:a']);
    calls.length = 0;
    t.publish('b');
    assert.deepEqual(calls, ['1:b', 'late:b']);
  });
});
