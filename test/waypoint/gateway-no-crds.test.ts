// A cluster without the Gateway API CRDs has no waypoints: the controller's informers read the kinds as not
// installed (empty, synced), its runs complete, and nothing is written (no CA Secret either). Installing the CRDs
// later is picked up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  GATEWAY_TYPES,
  gateway,
  harness,
  PROXY_LISTENER,
  waypointClass,
  type Harness,
} from './gateway-support.ts';

describe('waypoint Gateway controller: a cluster without the Gateway API CRDs', () => {
  let h: Harness;
  before(async () => {
    h = await harness({ gatewayApi: false });
  });
  after(() => h.close());

  it('is synced with no waypoints and writes nothing', async () => {
    await h.until(() => h.controller.synced, 'synced');
    const report = await h.controller.reconcile();
    assert.equal(report.skipped, undefined);
    assert.equal(report.gateways, 0);
    assert.deepEqual(report.failures, []);
    assert.deepEqual(h.api.writes(), []);
    assert.equal(h.ca.root(), undefined, 'no CA without a waypoint');
  });

  it('serves the waypoints once the CRDs are installed', async () => {
    for (const t of GATEWAY_TYPES) h.api.installCrd(t);
    h.api.seed([waypointClass(), gateway('w', [PROXY_LISTENER])]);
    await h.until(() => h.api.get('deployments.apps', 'shop', 'w') !== undefined, 'the Deployment');
  });
});
