// The config source's informer reducer (src/controller/kube/config-fields.ts): an object as the API server serves
// it, reduced, parses to exactly the object the full one parses to, and holds no status, managedFields or
// last-applied annotation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { configFields } from '../../../src/controller/kube/config-fields.ts';
import { LAST_APPLIED_ANNOTATION, parseConfigObject } from '../../../src/model/parse/parse.ts';

const metaRouter = {
  apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
  kind: 'MetaRouter',
  metadata: { namespace: 'shop', name: 'orders' },
  spec: {
    hosts: ['orders.shop.svc.cluster.local'],
    routes: [
      { name: 'v1', route: [{ destination: { host: 'orders.shop.svc.cluster.local', subset: 'v1' } }] },
    ],
  },
};
const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'shop', name: 'orders', labels: { app: 'orders' } },
  spec: {
    ports: [{ name: 'tcp-dubbo', port: 20880, protocol: 'TCP' }],
    clusterIP: '10.0.0.7',
    type: 'ClusterIP',
  },
};

/** `o` as served after `kubectl apply`: uid, generation, managedFields, the last-applied annotation, a status. */
function served(o: { metadata: Record<string, unknown> }): KubernetesObject {
  return {
    ...o,
    metadata: {
      ...o.metadata,
      uid: '5b1d7c2e-0000-4000-8000-000000000001',
      generation: 3,
      resourceVersion: '42',
      creationTimestamp: '2026-01-01T00:00:00Z',
      managedFields: [{ manager: 'kubectl-client-side-apply', operation: 'Update', fieldsType: 'FieldsV1' }],
      annotations: { 'aeraki.io/x': 'y', [LAST_APPLIED_ANNOTATION]: `${JSON.stringify(o)}\n` },
    },
    status: { conditions: [{ type: 'Accepted', status: 'True' }], loadBalancer: {} },
  } as unknown as KubernetesObject;
}

describe('configFields', () => {
  for (const o of [metaRouter, service]) {
    it(`${o.kind}: the reduced object parses to what the full one parses to`, () => {
      const full = served(o);
      const reduced = configFields(full);
      const a = parseConfigObject(full);
      const b = parseConfigObject(reduced);
      assert.ok(a?.ok && b?.ok);
      assert.deepEqual(b.value, a.value);
      assert.deepEqual(b.issues, a.issues);
      const md = reduced.metadata as Record<string, unknown>;
      assert.equal('status' in reduced, false);
      assert.equal('managedFields' in md, false);
      assert.deepEqual(md['annotations'], { 'aeraki.io/x': 'y' });
      assert.equal(md['uid'], '5b1d7c2e-0000-4000-8000-000000000001');
    });
  }

  it('leaves an object without metadata or annotations as it is, less its status', () => {
    assert.deepEqual(configFields({ kind: 'MetaRouter', status: {} } as KubernetesObject), {
      kind: 'MetaRouter',
    });
    const bare = configFields(metaRouter);
    assert.deepEqual(bare, metaRouter);
  });
});
