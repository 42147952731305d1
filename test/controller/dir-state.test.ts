// The directory source's state file (controller/dir-state.ts and its keeper): written atomically, a corrupt one
// ignored with a warning, only the fields the store reads kept (never a Secret), and across a "restart" (a second
// DirSource over the same state file) a broken file's last good read in effect while a removed file is gone.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { DirSource } from '../../src/controller/dir-source.ts';
import { keptFields } from '../../src/controller/dir-state-fields.ts';
import {
  dirStateText,
  readDirState,
  writeDirState,
  type DirStateEntry,
} from '../../src/controller/dir-state.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { DEFAULT_PARSE_OPTIONS } from '../../src/model/parse/parse.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { metaEntry, metaRouterRaw, ROOT, type Raw } from '../support/lkg-objects.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const root = mkdtempSync(join(tmpdir(), 'aeraki-dir-state-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => {
  const d = join(root, String(n++));
  mkdirSync(d, { recursive: true });
  return d;
};

const HASH = 'a'.repeat(64);
const entry = (path: string): DirStateEntry => ({ path, hash: HASH, objects: [{ kind: 'X' }] });
const ctx = { rootNamespace: ROOT, options: DEFAULT_PARSE_OPTIONS };

describe('the directory state file', () => {
  it('is written atomically: the whole text, mode 0600, no temporary file left, replaced as a whole', () => {
    const dir = fresh();
    const file = join(dir, 'state');
    writeDirState(file, dirStateText([entry('/a.yaml')]));
    assert.deepEqual(readDirState(file), { entries: [entry('/a.yaml')] });
    assert.equal(statSync(file).mode & 0o777, 0o600);
    writeDirState(file, dirStateText([entry('/b.yaml')]));
    assert.deepEqual(readDirState(file).entries, [entry('/b.yaml')]);
    assert.deepEqual(readdirSync(dir), ['state']);
  });

  it('leaves the old state in place when a write fails (over the limit, or the rename)', () => {
    const dir = fresh();
    const file = join(dir, 'state');
    writeDirState(file, dirStateText([entry('/a.yaml')]));
    assert.throws(() => writeDirState(file, dirStateText([entry('/b.yaml')]), 10), /over the limit of 10/);
    const blocked = join(dir, 'blocked');
    mkdirSync(join(blocked, 'x'), { recursive: true }); // a non-empty directory cannot be renamed over
    assert.throws(() => writeDirState(blocked, dirStateText([entry('/c.yaml')])));
    assert.deepEqual(readDirState(file).entries, [entry('/a.yaml')]);
    assert.deepEqual(readdirSync(dir).sort(), ['blocked', 'state']);
  });

  it('is ignored with a warning when it cannot be used, and is empty without one when missing', () => {
    const dir = fresh();
    const file = join(dir, 'state');
    assert.deepEqual(readDirState(file), { entries: [] });
    const cases: [string, RegExp][] = [
      ['{"version":1,"files":[{"path":"/a.yaml","ha', /not valid JSON/],
      ['[]', /expected a JSON object/],
      ['{"version":2,"files":[]}', /version: expected 1/],
      ['{"version":1,"files":[{"path":"/a.yaml","hash":"x","objects":[]}]}', /files\[0\]\.hash/],
      ['{"version":1,"files":[{"path":"/a.yaml","hash":"' + HASH + '","objects":[1]}]}', /objects/],
    ];
    for (const [text, why] of cases) {
      writeFileSync(file, text);
      const read = readDirState(file);
      assert.deepEqual(read.entries, [], text);
      assert.match(read.warning ?? '', why, text);
      assert.match(read.warning ?? '', /ignored$/);
    }
    writeFileSync(file, dirStateText([entry('/a.yaml')]));
    assert.match(readDirState(file, 10).warning ?? '', /bytes, over the limit of 10; ignored/);
    mkdirSync(join(dir, 'adir'));
    assert.match(readDirState(join(dir, 'adir')).warning ?? '', /cannot read/);
  });

  it('keeps only the fields the store reads, never a Secret, nothing of other kinds', () => {
    const entryWithExtras: Raw = {
      ...metaEntry,
      metadata: { ...(metaEntry['metadata'] as Raw), managedFields: [{ manager: 'kubectl' }] },
      spec: { ...(metaEntry['spec'] as Raw), subjectAltNames: ['spiffe://x'] },
      status: { conditions: [] },
    };
    assert.deepEqual(keptFields(entryWithExtras, ctx), metaEntry);
    const router = metaRouterRaw(true);
    assert.deepEqual(keptFields(router, ctx), router);
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'shop' } };
    assert.equal(keptFields({ ...secret, data: { password: 'c2VjcmV0' } }, ctx), undefined);
    assert.equal(
      keptFields({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } }, ctx),
      undefined,
    );
    const mesh = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'istio', namespace: ROOT },
      data: { mesh: 'accessLogFile: /dev/stdout\n' },
    };
    assert.deepEqual(keptFields(mesh, ctx), mesh);
  });
});

describe('DirSource with a state file', () => {
  const yamlOf = (raws: readonly Raw[]) => raws.map((r) => stringify(r)).join('---\n');
  const secretRaw: Raw = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'auth', namespace: 'shop' },
    data: { password: 'c2VjcmV0' },
  };

  function source(dir: string, stateFile: string, records = recordingLogger()) {
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = new DirSource({
      dir,
      store,
      rootNamespace: ROOT,
      debounceMs: 10,
      pollMs: 0,
      clock: new ManualClock(0),
      stateFile,
      logger: records,
    });
    return { store, src, records };
  }

  it('uses a broken file last good read after a restart, forgets a removed file, keeps no Secret', async () => {
    const dir = fresh();
    const config = join(dir, 'config');
    mkdirSync(config);
    const stateFile = join(dir, 'out', '.aeraki-dir-state');
    const routerFile = join(config, 'router.yaml');
    const goneFile = join(config, 'gone.yaml');
    writeFileSync(routerFile, yamlOf([metaEntry, metaRouterRaw(true), secretRaw]));
    writeFileSync(goneFile, yamlOf([{ ...metaEntry, metadata: { name: 'gone', namespace: 'shop' } }]));

    const first = source(config, stateFile);
    first.src.start();
    await first.src.stop();
    assert.equal(first.store.list('Secret').length, 1);
    const written = readFileSync(stateFile, 'utf8');
    assert.doesNotMatch(written, /c2VjcmV0|"Secret"/, 'no Secret in the state file');
    assert.deepEqual(
      readDirState(stateFile).entries.map((e) => e.path),
      [goneFile, routerFile],
    );

    // "Restart": the router file broken, the other file removed.
    writeFileSync(routerFile, 'kind: [ServiceEntry\n');
    rmSync(goneFile);
    const second = source(config, stateFile);
    second.src.start();
    try {
      assert.deepEqual(
        second.store.serviceEntries().map((s) => s.metadata.name),
        ['svc'],
        'the broken file last good read is in effect; the removed file is gone',
      );
      assert.equal(second.store.list('MetaRouter').length, 1);
      assert.equal(second.store.list('Secret').length, 0, 'the Secret was never kept');
      assert.equal(second.src.partial, false);
      assert.deepEqual(
        second.src.problems().map((p) => [p.path, p.lastGood, p.restored]),
        [[routerFile, true, true]],
      );
      const logged = second.records.records.find((r) => r.level === 'error');
      assert.match(logged?.message ?? '', /last good read of before the restart \(from the state file\)/);
      assert.equal(logged?.fields['file'], routerFile);
      assert.deepEqual(
        readDirState(stateFile).entries.map((e) => e.path),
        [routerFile],
        'the removed file left the state file too',
      );
    } finally {
      await second.src.stop();
    }

    // Without the state file: no last good read, as before.
    rmSync(stateFile);
    const third = source(config, stateFile);
    third.src.start();
    try {
      assert.equal(third.store.serviceEntries().length, 0);
      assert.equal(third.src.partial, true);
    } finally {
      await third.src.stop();
    }
  });

  it('ignores a corrupt state file with a warning and writes a good one', async () => {
    const dir = fresh();
    const config = join(dir, 'config');
    mkdirSync(config);
    const stateFile = join(dir, 'state');
    writeFileSync(stateFile, '\u0000garbage');
    writeFileSync(join(config, 'a.yaml'), yamlOf([metaEntry]));
    const { store, src, records } = source(config, stateFile);
    src.start();
    await src.stop();
    assert.equal(store.serviceEntries().length, 1);
    const warning = records.records.find((r) => r.level === 'warn');
    assert.match(warning?.message ?? '', /directory state file cannot be used: not valid JSON.*; ignored/);
    assert.equal(readDirState(stateFile).entries.length, 1);
  });

  it('warns when the state file cannot be written, and keeps serving', async () => {
    const dir = fresh();
    const config = join(dir, 'config');
    mkdirSync(config);
    const stateFile = join(dir, 'blocked');
    mkdirSync(join(stateFile, 'x'), { recursive: true });
    writeFileSync(join(config, 'a.yaml'), yamlOf([metaEntry]));
    const { store, src, records } = source(config, stateFile);
    src.start();
    await src.stop();
    assert.equal(store.serviceEntries().length, 1);
    const warnings = records.records.filter((r) => r.message.startsWith('cannot write the directory state'));
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]?.fields['stateFile'], stateFile);
  });
});
