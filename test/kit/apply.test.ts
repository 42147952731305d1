import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyWrites, planOps, type WritePort } from '../../src/kit/apply.ts';
import { SinkError, type WriteOp } from '../../src/kit/write.ts';

function op(name: string, verb: WriteOp['op'], write: () => Promise<void>): WriteOp {
  return { op: verb, kind: 'Thing', namespace: 'ns', name, write };
}

describe('applyWrites', () => {
  it('writes with bounded concurrency, starting ops in list order, and counts each verb', async () => {
    let inFlight = 0;
    let most = 0;
    const started: string[] = [];
    const write = (name: string) => async () => {
      started.push(name);
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
    };
    const ops = [
      op('a', 'create', write('a')),
      op('b', 'update', write('b')),
      op('c', 'update', write('c')),
      op('d', 'delete', write('d')),
      op('e', 'create', write('e')),
    ];
    const result = await applyWrites(ops, { concurrency: 2, mayWrite: () => true });
    assert.deepEqual(started, ['a', 'b', 'c', 'd', 'e']);
    assert.equal(most, 2);
    assert.deepEqual(result, { created: 2, updated: 2, deleted: 1, failures: [], interrupted: false });
  });

  it('collects every failure as a SinkError, and reports each op to onWrite', async () => {
    const seen: string[] = [];
    const result = await applyWrites(
      [
        op('a', 'create', () => Promise.reject(new Error('boom'))),
        op('b', 'update', () => Promise.reject(new SinkError('denied', { transient: false, code: 403 }))),
        op('c', 'create', () => Promise.resolve()),
      ],
      {
        concurrency: 1,
        mayWrite: () => true,
        onWrite: (o, error) => seen.push(`${o.name}:${error ? (error.code ?? 'failed') : 'ok'}`),
      },
    );
    assert.deepEqual(
      result.failures.map((f) => [f.name, f.error.transient, f.error.message]),
      [
        ['a', true, 'create Thing ns/a: boom'],
        ['b', false, 'denied'],
      ],
    );
    assert.deepEqual(seen, ['a:failed', 'b:403', 'c:ok']);
    assert.equal(result.created, 1);
  });

  it('a delete answered 404 is done: the object is already gone', async () => {
    const result = await applyWrites(
      [op('a', 'delete', () => Promise.reject(new SinkError('gone', { transient: false, code: 404 })))],
      { concurrency: 1, mayWrite: () => true },
    );
    assert.deepEqual([result.deleted, result.failures.length], [1, 0]);
  });

  it('stops at once when mayWrite() turns false', async () => {
    let allowed = 2;
    const written: string[] = [];
    const write = (name: string) => async () => {
      written.push(name);
      await Promise.resolve();
    };
    const result = await applyWrites(
      ['a', 'b', 'c', 'd'].map((n) => op(n, 'create', write(n))),
      { concurrency: 1, mayWrite: () => allowed-- > 0 },
    );
    assert.deepEqual(written, ['a', 'b']);
    assert.deepEqual([result.created, result.interrupted], [2, true]);
  });
});

describe('planOps', () => {
  it('writes creates, then updates, then deletes through the port, named after the objects', async () => {
    const calls: string[] = [];
    const port: WritePort<string, string> = {
      create: (d) => Promise.resolve(void calls.push(`create ${d}`)),
      update: (u) =>
        Promise.resolve(
          void calls.push(`update ${u.desired} over ${u.existing}${u.adopt ? ' (adopt)' : ''}`),
        ),
      delete: (e) => Promise.resolve(void calls.push(`delete ${e}`)),
    };
    const ops = planOps(
      {
        creates: ['c1', 'c2'],
        updates: [{ desired: 'u1', existing: 'old-u1', adopt: true }],
        deletes: ['d1'],
      },
      port,
      {
        desired: (d) => ({ kind: 'Thing', namespace: 'ns', name: d }),
        existing: (e) => ({ kind: 'Thing', namespace: 'ns', name: `existing ${e}` }),
      },
    );
    assert.deepEqual(
      ops.map((o) => [o.op, o.name, o.adopt ?? false]),
      [
        ['create', 'c1', false],
        ['create', 'c2', false],
        ['update', 'u1', true],
        ['delete', 'existing d1', false],
      ],
    );
    const result = await applyWrites(ops, { concurrency: 1, mayWrite: () => true });
    assert.deepEqual(calls, ['create c1', 'create c2', 'update u1 over old-u1 (adopt)', 'delete d1']);
    assert.deepEqual([result.created, result.updated, result.deleted], [2, 1, 1]);
  });
});
