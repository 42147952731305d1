// A MetaRouter change rebuilds and re-encodes only its routes; the snapshot shares every other resource.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IncrementalRoutes } from '../../src/xds-rds/incremental-routes.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';

const host = (i: number) => `s${i}.ns.svc.cluster.local`;
const entry = (i: number) =>
  serviceEntry('ns', `s${i}`, {
    hosts: [host(i)],
    ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
  });
const router = (subset: string) =>
  metaRouter('ns', 'mr', {
    hosts: [host(1)],
    routes: [
      {
        name: 'r',
        route: [{ destination: { host: host(1), subset } }],
        requestMutation: [],
        responseMutation: [],
      },
    ],
  });

describe('IncrementalRoutes', () => {
  it('rebuilds and re-encodes only the routes of the service a MetaRouter configures', () => {
    const store = storeOf([entry(0), entry(1), entry(2), router('v1')]);
    const routes = new IncrementalRoutes(store);
    const cache = new SnapshotCache();
    const patch = () => {
      const { changed } = routes.update();
      return cache.patchRoutes({
        names: changed,
        route: (n) => routes.route(n),
        isHeld: (n) => routes.isHeld(n),
      });
    };
    assert.deepEqual(patch(), [`${host(0)}_20880`, `${host(1)}_20880`, `${host(2)}_20880`]);
    const before = cache.snapshot();
    const encodes = cache.stats.resourceEncodes;
    store.upsert(router('v2'));
    assert.deepEqual(patch(), [`${host(1)}_20880`]);
    assert.equal(cache.stats.resourceEncodes, encodes + 1, 'one resource encoded');
    const after = cache.snapshot();
    assert.notEqual(after.version, before.version);
    for (const i of [0, 2]) {
      const name = `${host(i)}_20880`;
      assert.equal(after.resources.get(name), before.resources.get(name), `${name} is shared`);
    }
    assert.deepEqual(patch(), [], 'nothing changed: no new snapshot');
    assert.equal(cache.snapshot(), after);
    routes.stop();
  });
});
