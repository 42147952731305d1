import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Lifecycle, type Part } from '../../src/kit/lifecycle.ts';
import { recordingLogger } from '../support/recording-logger.ts';

/** A fake part recording its steps in `events`; `fail` names the steps that throw. */
function part(
  name: string,
  events: string[],
  fail: { start?: boolean; drain?: boolean; stop?: boolean } = {},
): Part {
  const step = (what: 'start' | 'drain' | 'stop') => async () => {
    await Promise.resolve();
    events.push(`${what} ${name}`);
    if (fail[what]) throw new Error(`${what} ${name} failed`);
  };
  return { name, start: step('start'), drain: step('drain'), stop: step('stop') };
}

describe('Lifecycle', () => {
  it('starts groups in order and stops in reverse: every drain, then every stop', async () => {
    const events: string[] = [];
    const life = new Lifecycle(recordingLogger());
    await life.startGroups([
      [part('a', events)],
      [part('b', events), part('c', events)],
      [part('d', events)],
    ]);
    assert.deepEqual(life.started(), ['a', 'b', 'c', 'd']);
    assert.deepEqual(events.slice(0, 1), ['start a']);
    assert.deepEqual([...events.slice(1, 3)].sort(), ['start b', 'start c']);
    assert.deepEqual(events.slice(3), ['start d']);
    events.length = 0;
    await life.stop();
    assert.deepEqual(events, [
      'drain d',
      'drain c',
      'drain b',
      'drain a',
      'stop d',
      'stop c',
      'stop b',
      'stop a',
    ]);
  });

  it('rolls back what started when a part of a middle group fails, and rethrows its error', async () => {
    const events: string[] = [];
    const logger = recordingLogger();
    const life = new Lifecycle(logger);
    await assert.rejects(
      life.startGroups([
        [part('a', events)],
        [part('b', events), part('c', events, { start: true })],
        [part('d', events)],
      ]),
      /start c failed/,
    );
    assert.ok(!events.includes('start d'), 'a later group does not start');
    assert.ok(!events.includes('stop c') && !events.includes('drain c'), 'the failing part is not stopped');
    assert.deepEqual(
      events.filter((e) => !e.startsWith('start')),
      ['drain b', 'drain a', 'stop b', 'stop a'],
    );
    assert.deepEqual(
      logger.records.filter((r) => r.level !== 'debug'),
      [],
      'the start error is left to the caller to report',
    );
  });

  it('keeps the start error when a rollback stop fails too', async () => {
    const events: string[] = [];
    const logger = recordingLogger();
    const life = new Lifecycle(logger);
    await assert.rejects(
      life.startGroups([
        [part('a', events)],
        [part('b', events, { stop: true })],
        [part('c', events, { start: true })],
      ]),
      /start c failed/,
    );
    assert.deepEqual(events.slice(-2), ['stop b', 'stop a']);
    assert.ok(logger.records.some((r) => r.message === 'stop failed' && r.fields['part'] === 'b'));
  });

  it('a failing drain or stop does not prevent the others; stop() then rejects with the first error', async () => {
    const events: string[] = [];
    const logger = recordingLogger();
    const life = new Lifecycle(logger);
    await life.start(
      part('a', events),
      part('b', events, { drain: true }),
      part('c', events, { stop: true }),
    );
    events.length = 0;
    await assert.rejects(life.stop(), /drain b failed/);
    assert.deepEqual(events, ['drain c', 'drain b', 'drain a', 'stop c', 'stop b', 'stop a']);
    assert.deepEqual(
      logger.records
        .filter((r) => r.level === 'error')
        .map((r) => `${r.message} ${String(r.fields['part'])}`),
      ['drain failed b', 'stop failed c'],
    );
  });

  it('stops once: a second stop() returns the same promise and stops nothing again', async () => {
    const events: string[] = [];
    const life = new Lifecycle(recordingLogger());
    await life.start(part('a', events));
    const first = life.stop();
    assert.equal(life.stop(), first);
    await first;
    await life.stop();
    assert.deepEqual(events, ['start a', 'drain a', 'stop a']);
    await assert.rejects(life.start(part('b', events)), /stopping/);
  });

  it('parts without drain or stop are skipped', async () => {
    const events: string[] = [];
    const life = new Lifecycle(recordingLogger());
    await life.start({ name: 'bare' }, { name: 'closer', stop: () => void events.push('stop closer') });
    await life.stop();
    assert.deepEqual(events, ['stop closer']);
  });
});
