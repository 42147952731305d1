import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../index.ts';
import { call, EF, envoyFilter, WatchReader } from './http.ts';

describe('fake kube-apiserver: watch', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer({ eventWindow: 5 });
  });
  after(() => api.close());

  it('replays from a resourceVersion, then streams live events', async () => {
    const list = await call(api, 'GET', EF);
    const rv = list.body.metadata.resourceVersion;
    await call(api, 'POST', EF, envoyFilter('w1'));
    await call(api, 'PATCH', `${EF}/w1`, { spec: { a: 2 } }, 'application/merge-patch+json');
    const w = await WatchReader.open(api, `${EF}?watch=true&resourceVersion=${rv}`);
    await w.waitFor(2);
    await call(api, 'DELETE', `${EF}/w1`);
    const ev = await w.waitFor(3);
    assert.deepEqual(
      ev.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
    assert.equal(ev[0]!.object.kind, 'EnvoyFilter');
    assert.equal(ev[0]!.object.apiVersion, 'networking.istio.io/v1alpha3');
    assert.ok(
      Number(ev[2]!.object.metadata.resourceVersion) > Number(ev[1]!.object.metadata.resourceVersion),
    );
    w.close();
  });

  it('sends ADDED for current objects without a resourceVersion, and filters by selector', async () => {
    api.seed([envoyFilter('w2', {}, { app: 'a' }), envoyFilter('w3', {}, { app: 'b' })]);
    const w = await WatchReader.open(api, `${EF}?watch=true&labelSelector=app%3Da`);
    const ev = await w.waitFor(1);
    assert.equal(ev[0]!.object.metadata.name, 'w2');
    await call(
      api,
      'PATCH',
      `${EF}/w2`,
      { metadata: { labels: { app: 'b' } } },
      'application/merge-patch+json',
    );
    await call(
      api,
      'PATCH',
      `${EF}/w3`,
      { metadata: { labels: { app: 'a' } } },
      'application/merge-patch+json',
    );
    const more = await w.waitFor(3);
    assert.deepEqual(
      more.slice(1).map((e) => `${e.type} ${e.object.metadata.name}`),
      ['DELETED w2', 'ADDED w3'],
    );
    w.close();
  });

  it('answers an ERROR 410 Expired event when the resourceVersion is older than the window', async () => {
    const w = await WatchReader.open(api, `${EF}?watch=true&resourceVersion=1001`);
    const ev = await w.waitFor(1);
    assert.equal(ev[0]!.type, 'ERROR');
    assert.equal(ev[0]!.object.code, 410);
    assert.equal(ev[0]!.object.reason, 'Expired');
    await w.waitEnd();
    const rv = api.resourceVersion();
    const ok = await WatchReader.open(api, `${EF}?watch=true&resourceVersion=${rv}`);
    api.compact();
    const late = await WatchReader.open(api, `${EF}?watch=true&resourceVersion=${rv - 1}`);
    assert.equal((await late.waitFor(1))[0]!.object.code, 410);
    ok.close();
    late.close();
  });

  it('honours timeoutSeconds and bookmarks, and closeWatches() ends streams', async () => {
    const rv = api.resourceVersion();
    const t = await WatchReader.open(api, `${EF}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
    await t.waitEnd(4000);
    const b = await WatchReader.open(api, `${EF}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`);
    const plain = await WatchReader.open(api, `${EF}?watch=true&resourceVersion=${rv}`);
    assert.equal(api.openWatches, 2);
    api.sendBookmarks();
    const ev = await b.waitFor(1);
    assert.equal(ev[0]!.type, 'BOOKMARK');
    assert.equal(ev[0]!.object.metadata.resourceVersion, String(rv));
    api.closeWatches();
    await b.waitEnd();
    await plain.waitEnd();
    assert.equal(plain.events.length, 0);
    assert.equal(api.openWatches, 0);
  });
});
