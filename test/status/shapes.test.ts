// How the status writer learns each CRD's scope and status subresource: described once while it has objects,
// forgotten when it has none or a write answered 404, and a CRD without /status said once at info.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResourceId, ServedResource } from '../../src/kit/kube/discovery.ts';
import { StatusShapes, type ShapedResource } from '../../src/status/shapes.ts';
import { recordingLogger, type LogRecord } from '../support/recording-logger.ts';

const AP: ShapedResource = {
  kind: 'ApplicationProtocol',
  group: 'metaprotocol.aeraki.io',
  version: 'v1alpha1',
  plural: 'applicationprotocols',
};

function served(shape: ServedResource | undefined) {
  const asked: ResourceId[] = [];
  const discovery = {
    shape,
    describe: (r: ResourceId) => {
      asked.push(r);
      return Promise.resolve(discovery.shape);
    },
  };
  return { discovery, asked };
}

describe('StatusShapes', () => {
  it('describes a resource once while it has objects, and again after a 404 or once it had none', async () => {
    const { discovery, asked } = served({ namespaced: true, status: true });
    const shapes = new StatusShapes(discovery, undefined);
    assert.equal(await shapes.hasStatus(AP, 0), true);
    assert.equal(asked.length, 0, 'no objects: nothing asked');
    assert.equal(await shapes.hasStatus(AP, 2), true);
    assert.equal(await shapes.hasStatus(AP, 2), true);
    assert.equal(asked.length, 1, 'described once');
    discovery.shape = { namespaced: true, status: false };
    shapes.forget(AP.kind);
    assert.equal(await shapes.hasStatus(AP, 1), false, 'described again after a 404');
    discovery.shape = { namespaced: true, status: true };
    assert.equal(await shapes.hasStatus(AP, 0), true);
    assert.equal(await shapes.hasStatus(AP, 1), true, 'described again after it had no objects');
    assert.equal(asked.length, 3);
  });

  it('skips a CRD without /status, said once at info however often it is described', async () => {
    const records: LogRecord[] = [];
    const { discovery } = served({ namespaced: true, status: false });
    const shapes = new StatusShapes(discovery, recordingLogger(records));
    for (let i = 0; i < 3; i++) {
      assert.equal(await shapes.hasStatus(AP, 1), false);
      shapes.forgetAll();
    }
    assert.deepEqual(
      records.map((r) => `${r.level} ${r.message}`),
      [
        'info applicationprotocols.metaprotocol.aeraki.io has no status subresource (its CRD declares none): ' +
          'no status is written for ApplicationProtocol objects',
      ],
    );
    discovery.shape = { namespaced: true, status: true };
    assert.equal(await shapes.hasStatus(AP, 1), true);
    shapes.forgetAll();
    discovery.shape = { namespaced: true, status: false };
    assert.equal(await shapes.hasStatus(AP, 1), false);
    assert.equal(records.length, 2, 'said again after it had /status');
  });
});
