import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExistingObject } from '../../src/reconcile/diff.ts';
import { ManagedCache } from '../../src/reconcile/managed-cache.ts';
import { specHash } from '../../src/kit/owned-content.ts';
import { olderVersion, replacesVersion } from '../../src/kit/kube/resource-version.ts';

const obj = (name: string, resourceVersion: string): ExistingObject => ({
  kind: 'EnvoyFilter',
  namespace: 'istio-system',
  name,
  resourceVersion,
  labels: { manager: 'Aeraki' },
  annotations: {},
  specHash: specHash({ v: resourceVersion }),
});

describe('ManagedCache', () => {
  it('compares integer resourceVersions numerically and never calls other versions older', () => {
    assert.equal(olderVersion('9', '10'), true);
    assert.equal(olderVersion('10', '9'), false);
    assert.equal(olderVersion('10', '10'), false);
    assert.equal(olderVersion('abc', '10'), false);
    assert.equal(olderVersion('', '10'), false);
    assert.equal(replacesVersion('11', '10'), true);
    assert.equal(replacesVersion('10', '10'), false, 'the same version');
    assert.equal(replacesVersion('9', '10'), false, 'an older one');
    assert.equal(replacesVersion('abc', '10'), true, 'not comparable: taken as it comes');
  });

  it('an older version never replaces a newer one (a late watch event after a write answer)', () => {
    const cache = new ManagedCache();
    assert.equal(cache.upsert(obj('a', '7')), true, 'write answer');
    assert.equal(cache.upsert(obj('a', '5')), false, 'older watch event');
    assert.equal(cache.upsert(obj('a', '7')), false, 'the same version again');
    assert.equal(cache.get('EnvoyFilter', 'istio-system', 'a')?.resourceVersion, '7');
    assert.equal(cache.upsert(obj('a', '8')), true);
    assert.equal(cache.size, 1);
  });

  it('reports watch events and list items as changed, not the answers to its own writes; trackers see all', () => {
    const cache = new ManagedCache();
    const tracker = cache.track();
    assert.equal(cache.upsert(obj('own', '3'), true), true, 'a write answer is recorded');
    cache.upsert(obj('seen', '4'));
    cache.remove('EnvoyFilter', 'istio-system', 'own');
    cache.upsert(obj('own2', '5'), true);
    assert.deepEqual(
      cache.takeChanged().map((c) => c.name),
      ['seen', 'own'],
      'the watch event and the deletion',
    );
    assert.deepEqual([...tracker.stop()].sort(), [
      'EnvoyFilter/istio-system/own',
      'EnvoyFilter/istio-system/own2',
      'EnvoyFilter/istio-system/seen',
    ]);
    cache.upsert(obj('after', '6'));
    assert.equal(tracker.stop().size, 3, 'a stopped tracker records nothing more');
  });

  it('a deletion of an older version keeps the newer object (re-created since)', () => {
    const cache = new ManagedCache();
    cache.upsert(obj('a', '12'));
    assert.equal(cache.remove('EnvoyFilter', 'istio-system', 'a', '11'), false);
    assert.equal(cache.size, 1);
    assert.equal(cache.remove('EnvoyFilter', 'istio-system', 'a', '12'), true);
    assert.equal(cache.remove('EnvoyFilter', 'istio-system', 'a', '12'), false, 'already gone');
    assert.deepEqual(cache.list(), []);
  });

  it('is synced once the watch listed, and not while marked stale', () => {
    const cache = new ManagedCache();
    assert.equal(cache.synced, false);
    cache.markSynced();
    assert.equal(cache.synced, true);
    cache.markStale();
    assert.equal(cache.synced, false);
    cache.repaired();
    assert.equal(cache.synced, true);
  });

  it('knows which objects the controller is writing, until every write of them ended', () => {
    const cache = new ManagedCache();
    cache.beginWrite('EnvoyFilter', 'istio-system', 'a');
    cache.beginWrite('EnvoyFilter', 'istio-system', 'a');
    assert.equal(cache.writing('EnvoyFilter', 'istio-system', 'a'), true);
    assert.equal(cache.writing('EnvoyFilter', 'istio-system', 'b'), false);
    cache.endWrite('EnvoyFilter', 'istio-system', 'a');
    assert.equal(cache.writing('EnvoyFilter', 'istio-system', 'a'), true, 'one write still in flight');
    cache.endWrite('EnvoyFilter', 'istio-system', 'a');
    assert.equal(cache.writing('EnvoyFilter', 'istio-system', 'a'), false);
  });

  it('indexes objects by their source annotation and reports the objects that changed since the last look', () => {
    const cache = new ManagedCache();
    const of = (name: string, rv: string, source?: string): ExistingObject => ({
      ...obj(name, rv),
      annotations: source ? { 'aeraki.io/source': source } : {},
    });
    cache.upsert(of('a', '1', 'ServiceEntry/ns/x'));
    cache.upsert(of('b', '2', 'ServiceEntry/ns/x'));
    cache.upsert(of('c', '3'));
    const names = (xs: readonly { name: string }[]) => xs.map((x) => x.name).sort();
    assert.deepEqual(names(cache.bySource('ServiceEntry/ns/x')), ['a', 'b']);
    assert.deepEqual(names(cache.bySource('')), ['c'], 'no annotation');
    assert.deepEqual(names(cache.takeChanged()), ['a', 'b', 'c']);
    assert.deepEqual(cache.takeChanged(), [], 'taken');
    cache.upsert(of('b', '4', 'ServiceEntry/ns/y'));
    cache.upsert(of('a', '1', 'ServiceEntry/ns/x'));
    cache.remove('EnvoyFilter', 'istio-system', 'c');
    assert.deepEqual(names(cache.bySource('ServiceEntry/ns/x')), ['a'], 'b moved to another source');
    assert.deepEqual(names(cache.bySource('ServiceEntry/ns/y')), ['b']);
    assert.deepEqual(cache.bySource(''), []);
    assert.deepEqual(names(cache.takeChanged()), ['b', 'c'], 'the same version again is no change');
  });
});
