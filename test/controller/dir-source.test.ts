// The directory source on a manual clock: its polling and its debounced re-loads (a ControllerLoop's runs).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DirSource } from '../../src/controller/dir-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const ROOT = 'istio-system';

const serviceEntry = (name: string) =>
  [
    'apiVersion: networking.istio.io/v1',
    'kind: ServiceEntry',
    `metadata: { name: ${name}, namespace: ns }`,
    `spec: { hosts: [${name}.example], ports: [{ number: 9000, name: tcp-metaprotocol-x }] }`,
    '',
  ].join('\n');

describe('DirSource on a manual clock', () => {
  it('re-loads once for a change, on the clock: nothing runs until it moves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeraki-dir-source-'));
    const clock = new ManualClock(0);
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = new DirSource({
      dir,
      store,
      rootNamespace: ROOT,
      debounceMs: 100,
      pollMs: 1000,
      clock,
      logger: silentLogger,
    });
    try {
      writeFileSync(join(dir, 'a.yaml'), serviceEntry('a'));
      src.start();
      assert.equal(src.loads, 1);
      writeFileSync(join(dir, 'b.yaml'), serviceEntry('b'));
      await new Promise((resolve) => setTimeout(resolve, 100)); // the watch event, if any, is delivered
      assert.equal(
        src.loads,
        1,
        'the watch event (if delivered) waits for the debounce, on the manual clock',
      );
      clock.advance(1100); // the poll at 1000 ms, then the debounce
      await src.idle();
      assert.equal(src.loads, 2, 'one re-load for the change, noticed by the watch or the poll');
      assert.deepEqual(
        store.serviceEntries().map((s) => s.metadata.name),
        ['a', 'b'],
      );
      clock.advance(3000);
      await src.idle();
      assert.equal(src.loads, 2, 'an unchanged signature requests nothing');
    } finally {
      await src.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(clock.pending(), 0, 'stop() leaves no timer');
  });

  it('a broken file fixed is "readable again"; a broken file removed is said to be removed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeraki-dir-source-'));
    const clock = new ManualClock(0);
    const log = recordingLogger();
    const src = new DirSource({
      dir,
      store: new ConfigStore({ rootNamespace: ROOT }),
      rootNamespace: ROOT,
      debounceMs: 100,
      pollMs: 1000,
      clock,
      logger: log,
    });
    const infos = () => log.records.filter((r) => r.level === 'info' && r.fields['file'] !== undefined);
    try {
      writeFileSync(join(dir, 'fixed.yaml'), 'kind: [\n');
      writeFileSync(join(dir, 'removed.yaml'), 'kind: [\n');
      src.start();
      writeFileSync(join(dir, 'fixed.yaml'), serviceEntry('a'));
      unlinkSync(join(dir, 'removed.yaml'));
      clock.advance(1100);
      await src.idle();
      assert.deepEqual(
        infos().map((r) => [r.message, r.fields['file']]),
        [
          ['config file readable again', join(dir, 'fixed.yaml')],
          [
            'config file that could not be used was removed: nothing of it is in effect any more',
            join(dir, 'removed.yaml'),
          ],
        ],
      );
    } finally {
      await src.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an object written with a YAML merge key is refused with an error at the key, the rest served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeraki-dir-source-'));
    const log = recordingLogger();
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = new DirSource({
      dir,
      store,
      rootNamespace: ROOT,
      debounceMs: 100,
      pollMs: 1000,
      clock: new ManualClock(0),
      logger: log,
    });
    try {
      writeFileSync(join(dir, 'a.yaml'), serviceEntry('a'));
      writeFileSync(
        join(dir, 'merged.yaml'),
        [
          'apiVersion: networking.istio.io/v1',
          'kind: ServiceEntry',
          'base: &base { name: m, namespace: ns }',
          'metadata: { <<: *base }',
          'spec: { hosts: [m.example], ports: [{ number: 9000, name: tcp-metaprotocol-x }] }',
          '',
        ].join('\n'),
      );
      src.start();
      assert.deepEqual(
        store.serviceEntries().map((e) => e.metadata.name),
        ['a'],
      );
      const warned = log.records
        .filter((r) => r.message === 'config issue')
        .map((r) => String(r.fields['issue']));
      assert.ok(
        warned.some(
          (w) =>
            w.includes('ServiceEntry ns/m') && w.includes('metadata.<<: merge keys (<<) are not supported'),
        ),
        warned.join('\n'),
      );
      assert.ok(!warned.some((w) => w.includes('required field is missing')), warned.join('\n'));
    } finally {
      await src.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
