import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/util/logging.ts';

function capture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      cb();
    },
  });
  return { stream, lines };
}

describe('createLogger', () => {
  it('writes JSON lines with the component, structured fields and serialised errors', () => {
    const { stream, lines } = capture();
    const log = createLogger({ level: 'info', format: 'json', component: 'reconciler', stream });
    log.debug('hidden');
    log.info('created EnvoyFilter', { name: 'aeraki-x', namespace: 'istio-system' });
    log
      .child({ stream: 7 })
      .error('apply failed', { err: new Error('conflict', { cause: new Error('409') }) });
    assert.equal(lines.length, 2);
    const first = JSON.parse(lines[0]!);
    assert.equal(first.level, 'info');
    assert.equal(first.message, 'created EnvoyFilter');
    assert.equal(first.component, 'reconciler');
    assert.equal(first.name, 'aeraki-x');
    assert.ok(typeof first.timestamp === 'string');
    const second = JSON.parse(lines[1]!);
    assert.equal(second.stream, 7);
    assert.equal(second.err.error, 'conflict');
    assert.equal(second.err.cause.error, '409');
  });

  it("a child's component overrides the root component", () => {
    const { stream, lines } = capture();
    const log = createLogger({ level: 'info', format: 'json', component: 'aeraki', stream });
    log.child({ component: 'reconciler' }).info('run');
    log.info('root');
    assert.equal(JSON.parse(lines[0]!).component, 'reconciler');
    assert.equal(JSON.parse(lines[1]!).component, 'aeraki');
  });

  it('text format is one readable line', () => {
    const { stream, lines } = capture();
    createLogger({ level: 'debug', format: 'text', component: 'rds', stream }).debug('push', {
      version: 'abc',
    });
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /debug push \{"component":"rds","version":"abc"\}$/);
  });
});
