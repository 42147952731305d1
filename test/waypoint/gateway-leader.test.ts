// The Gateway controller is a leader part (kit/runtime.ts): in a runtime whose elector has not elected this
// replica, the CA reader runs and nothing is written; on election the Gateway is served; on loss writing stops.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Runtime, type Elector, type LeadershipCallbacks } from '../../src/kit/runtime.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { gateway, harness, PROXY_LISTENER, waypointClass, type Harness } from './gateway-support.ts';

class TestElector implements Elector {
  private callbacks: LeadershipCallbacks | undefined;
  private leading = false;
  start(callbacks: LeadershipCallbacks): void {
    this.callbacks = callbacks;
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
  isLeader(): boolean {
    return this.leading;
  }
  set(leading: boolean): void {
    this.leading = leading;
    if (leading) this.callbacks?.onStartedLeading();
    else this.callbacks?.onStoppedLeading();
  }
}

describe('waypoint Gateway controller: a leader part', () => {
  let h: Harness;
  const elector = new TestElector();
  const runtime = new Runtime({ logger: silentLogger, elector });
  before(async () => {
    h = await harness({ start: false });
    h.api.seed([waypointClass(), gateway('w', [PROXY_LISTENER])]);
    assert.deepEqual(
      h.parts.map((p) => [p.name, p.needLeader === true]),
      [
        ['waypoint-ca', false],
        ['waypoint-gateways', true],
      ],
    );
    await runtime.start(...h.parts);
  });
  after(async () => {
    await runtime.stop();
    await h.close();
  });

  it('writes nothing while another replica leads', async () => {
    await h.ca.whenSynced();
    for (let i = 0; i < 5; i++) {
      h.clock.advance(1000);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(runtime.started(), ['waypoint-ca']);
    assert.deepEqual(h.api.writes(), []);
  });

  it('serves the Gateway once elected, and stops writing when leadership is lost', async () => {
    elector.set(true);
    await runtime.settled();
    await h.until(() => h.api.get('deployments.apps', 'shop', 'w') !== undefined, 'the Deployment');
    elector.set(false);
    await runtime.settled();
    assert.deepEqual(runtime.leading(), []);
    h.api.clearRequests();
    h.api.seed(gateway('v', [PROXY_LISTENER]));
    for (let i = 0; i < 5; i++) {
      h.clock.advance(1000);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(h.api.writes({ namespace: 'shop' }), []);
  });
});
