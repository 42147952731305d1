import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../index.ts';
import { call, EF, envoyFilter } from './http.ts';

const APPLY = 'application/apply-patch+yaml';

describe('fake kube-apiserver: server-side apply', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
  });
  after(() => api.close());

  const apply = (name: string, body: unknown, q: string) =>
    call(api, 'PATCH', `${EF}/${name}?${q}`, body, APPLY);

  it('creates (201), then merges (200), and a repeated apply stores nothing', async () => {
    const first = await apply('s1', envoyFilter('s1', { a: 1, b: { c: 2 } }), 'fieldManager=aeraki');
    assert.equal(first.status, 201);
    const mf = first.body.metadata.managedFields;
    assert.equal(mf.length, 1);
    assert.equal(mf[0].manager, 'aeraki');
    assert.equal(mf[0].operation, 'Apply');
    assert.deepEqual(mf[0].fieldsV1, { 'f:spec': { 'f:a': {}, 'f:b': { 'f:c': {} } } });
    const second = await apply('s1', envoyFilter('s1', { a: 2, b: { c: 2 } }), 'fieldManager=aeraki');
    assert.equal(second.status, 200);
    assert.equal(second.body.metadata.generation, 2);
    const third = await apply('s1', envoyFilter('s1', { a: 2, b: { c: 2 } }), 'fieldManager=aeraki');
    assert.equal(third.body.metadata.resourceVersion, second.body.metadata.resourceVersion);
    assert.equal((await apply('s1', envoyFilter('s1'), '')).status, 422, 'fieldManager is required');
  });

  it('accepts YAML bodies', async () => {
    const yaml =
      'apiVersion: networking.istio.io/v1alpha3\nkind: EnvoyFilter\nmetadata:\n  name: y1\nspec:\n  k: v\n';
    const res = await apply('y1', yaml, 'fieldManager=aeraki');
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.spec, { k: 'v' });
  });

  it('removes fields the manager no longer applies', async () => {
    const res = await apply('s1', envoyFilter('s1', { a: 2 }), 'fieldManager=aeraki');
    assert.deepEqual(res.body.spec, { a: 2 });
  });

  it('conflicts (409) with another manager unless forced, and shares equal values', async () => {
    const same = await apply('s1', envoyFilter('s1', { a: 2, other: 1 }), 'fieldManager=other');
    assert.equal(same.status, 200, 'the same value is no conflict');
    const clash = await apply('s1', envoyFilter('s1', { a: 3 }), 'fieldManager=other');
    assert.equal(clash.status, 409);
    assert.equal(clash.body.reason, 'Conflict');
    assert.match(clash.body.message, /conflict with "aeraki"/);
    assert.equal(clash.body.details.causes[0].type, 'FieldManagerConflict');
    assert.equal(clash.body.details.causes[0].field, '.spec.a');
    const forced = await apply('s1', envoyFilter('s1', { a: 3 }), 'fieldManager=other&force=true');
    assert.equal(forced.status, 200);
    assert.deepEqual(forced.body.spec, { a: 3 }, 'other stopped applying spec.other, which it alone owned');
    const aeraki = forced.body.metadata.managedFields.find((m: any) => m.manager === 'aeraki');
    assert.equal(aeraki, undefined, 'aeraki lost its only field');
  });

  it('conflicts with fields owned by a plain update (operation Update)', async () => {
    await call(api, 'POST', `${EF}?fieldManager=kubectl-edit`, envoyFilter('u1', { x: 1 }));
    const res = await apply('u1', envoyFilter('u1', { x: 2 }), 'fieldManager=aeraki');
    assert.equal(res.status, 409);
    assert.match(res.body.message, /kubectl-edit/);
    const ok = await apply('u1', envoyFilter('u1', { x: 2 }), 'fieldManager=aeraki&force=true');
    assert.equal(ok.status, 200);
    const stale = await apply(
      'u1',
      { ...envoyFilter('u1', { x: 2 }), metadata: { name: 'u1', resourceVersion: '1' } },
      'fieldManager=aeraki',
    );
    assert.equal(stale.status, 409, 'an apply with a stale resourceVersion is a precondition failure');
  });
});
