// What a parsed object holds (issue 40, memory): the fields generation, status, analysis, validation and the debug
// pages read, and nothing a reader never looks at. An object as the API server serves it (managedFields, uid,
// kubectl's last-applied annotation holding the object again) renders exactly what the bare object renders.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { render } from '../../../src/app/render.ts';
import { issueLine } from '../../../src/model/result.ts';
import { LAST_APPLIED_ANNOTATION, parseConfigObject } from '../../../src/model/parse/parse.ts';
import type { ConfigObject } from '../../../src/model/objects.ts';
import { isPlainObject } from '../../../src/util/json.ts';
import { loadCases, optionsOf } from '../../app/fixture-cases.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-projection-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `doc` as written with `kubectl apply` and served back: managedFields, uid, the last-applied annotation. */
function asServed(doc: unknown, i: number): unknown {
  if (!isPlainObject(doc) || !isPlainObject(doc['metadata'])) return doc;
  const md = doc['metadata'];
  const annotations = isPlainObject(md['annotations']) ? md['annotations'] : {};
  return {
    ...doc,
    metadata: {
      ...md,
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
      managedFields: [{ manager: 'kubectl-client-side-apply', operation: 'Update', fieldsType: 'FieldsV1' }],
      annotations: { ...annotations, [LAST_APPLIED_ANNOTATION]: `${JSON.stringify(doc)}\n` },
    },
    status: { conditions: [] },
  };
}

function parsed(raw: unknown): ConfigObject {
  const res = parseConfigObject(raw);
  assert.ok(res?.ok, JSON.stringify(res));
  return res.value;
}

const serviceEntry = (metadata: Record<string, unknown>) => ({
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { namespace: 'shop', ...metadata },
  spec: {
    hosts: ['orders.shop.svc.cluster.local'],
    ports: [{ number: 20880, name: 'tcp-dubbo', protocol: 'TCP' }],
  },
});

describe('parsed objects hold what is read', () => {
  it('every render fixture renders the same from its objects as the API server serves them', () => {
    for (const c of loadCases()) {
      const docs = parseAllDocuments(readFileSync(c.input, 'utf8')).map((d) => d.toJS() as unknown);
      const served = path.join(dir, `${c.name}.yaml`);
      writeFileSync(served, docs.map((d, i) => stringify(asServed(d, i))).join('---\n'));
      const bare = render({ files: [c.input], output: 'json', ...optionsOf(c) });
      const full = render({ files: [served], output: 'json', ...optionsOf(c) });
      assert.equal(full.stdout, bare.stdout, `${c.name}: output`);
      const lines = (r: typeof bare) => r.issues.map((i) => issueLine(i));
      assert.deepEqual(lines(full), lines(bare), `${c.name}: issues`);
    }
  });

  it("drops kubectl's last-applied annotation and keeps every other one", () => {
    const applied = serviceEntry({ name: 'orders', annotations: { 'aeraki.io/x': 'y' } });
    const o = parsed(asServed(applied, 1));
    assert.deepEqual(o.metadata.annotations, { 'aeraki.io/x': 'y' });
    assert.equal(o.metadata.uid, '00000000-0000-0000-0000-000000000001');
    const only = parsed(serviceEntry({ name: 'orders', annotations: { [LAST_APPLIED_ANNOTATION]: '{}' } }));
    assert.deepEqual(only.metadata.annotations, {});
  });

  it('shares one frozen empty map among objects without labels or annotations', () => {
    const a = parsed(serviceEntry({ name: 'a' }));
    const b = parsed(serviceEntry({ name: 'b', labels: {}, annotations: {} }));
    assert.equal(a.metadata.labels, b.metadata.labels);
    assert.equal(a.metadata.annotations, b.metadata.labels);
    assert.ok(Object.isFrozen(a.metadata.labels));
    const labelled = parsed(serviceEntry({ name: 'c', labels: { app: 'orders' } }));
    assert.deepEqual(labelled.metadata.labels, { app: 'orders' });
  });
});
