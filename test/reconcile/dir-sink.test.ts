import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { createDirSink, objectFile } from '../../src/reconcile/dir-sink.ts';
import { Reconciler } from '../../src/reconcile/reconciler.ts';
import { silentLogger } from '../../src/util/logger.ts';
import type { OutputObject } from '../../src/model/objects.ts';
import { filter, refClock } from './support.ts';

describe('directory sink', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aeraki-dirsink-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps one YAML file per object with full-state semantics through the reconciler', async () => {
    const sink = createDirSink(dir);
    let objects: OutputObject[] = [
      filter('istio-system', 'a', 'ServiceEntry/ns/a'),
      filter('shop', 'b', 'ServiceEntry/ns/b'),
    ];
    const rec = new Reconciler({
      sink,
      desired: () => ({ objects, issues: [], failedSources: new Set() }),
      isSynced: () => true,
      resyncMs: 0,
      clock: refClock,
      logger: silentLogger,
    });
    await rec.runNow();
    const fa = objectFile(dir, 'EnvoyFilter', 'istio-system', 'a');
    const doc = parse(await readFile(fa, 'utf8'));
    assert.equal(doc.metadata.name, 'a');
    assert.equal(doc.metadata.labels.manager, 'Aeraki');
    assert.ok(doc.metadata.annotations['aeraki.io/content-hash']);
    assert.equal((await sink.list()).length, 2);

    await rec.runNow();
    assert.equal(
      rec.totals.created + rec.totals.updated + rec.totals.deleted,
      2,
      'unchanged resync writes nothing',
    );

    // A hand edit is repaired; a removed source's file is deleted; foreign files are left alone.
    await writeFile(fa, (await readFile(fa, 'utf8')).replace('REPLACE', 'MERGE'));
    const foreign = path.join(dir, 'shop', 'notes.yaml');
    await writeFile(foreign, 'kind: ConfigMap\n');
    objects = [objects[0]!];
    await rec.runNow();
    assert.equal(rec.totals.updated, 1);
    assert.equal(rec.totals.deleted, 1);
    assert.match(await readFile(fa, 'utf8'), /REPLACE/);
    assert.equal((await sink.list()).length, 1);
    assert.equal(await readFile(foreign, 'utf8'), 'kind: ConfigMap\n');
    await rec.stop();
  });

  it('an update of a file changed since it was listed is a transient conflict', async () => {
    const sink = createDirSink(dir);
    const o = filter('x', 'c', 'ServiceEntry/x/c');
    await sink.create(o);
    const [e] = (await sink.list()).filter((x) => x.name === 'c');
    await writeFile(
      objectFile(dir, 'EnvoyFilter', 'x', 'c'),
      (await readFile(objectFile(dir, 'EnvoyFilter', 'x', 'c'), 'utf8')) + '\n',
    );
    await assert.rejects(
      sink.update(o, e!),
      (err: { transient?: boolean; code?: number }) => err.transient === true && err.code === 409,
    );
    await assert.rejects(sink.create(o), (err: { code?: number }) => err.code === 409);
  });
});
