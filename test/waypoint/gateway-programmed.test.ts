// Gateway status from the proxies' answers (a fake WaypointPrograms, as the ADS side reports them): Programmed is
// Unknown/Pending before an ACK, True once acked, False/ProxyRejected with the first error detail on a NACK, with
// one Warning Event (not repeated while the rejection lasts); what the waypoint cannot carry (WaypointCoverage) is
// the aeraki.io/ServicesCarried condition and a Warning Event.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../fakes/kube-apiserver/index.ts';
import {
  conditionOf,
  gateway,
  harness,
  PROXY_LISTENER,
  waypointClass,
  type Harness,
} from './gateway-support.ts';

const KEY = 'shop/w';

describe('waypoint Gateway controller: Programmed follows the proxies, rejections are Events', () => {
  let h: Harness;
  const gw = () => h.api.get('gateways.gateway.networking.k8s.io', 'shop', 'w');
  const programmed = () => conditionOf(gw(), 'Programmed');
  const events = (reason: string): KubeObject[] =>
    h.api.list('events.events.k8s.io', 'shop').filter((e) => e['reason'] === reason);
  before(async () => {
    h = await harness();
    h.api.seed([waypointClass(), gateway('w', [PROXY_LISTENER])]);
    await h.until(() => programmed() !== undefined, 'first status');
  });
  after(() => h.close());

  it('pending: Unknown, reason Pending', async () => {
    h.programs.set({ gateway: KEY, state: 'pending', connected: 1 });
    await h.until(() => String(programmed()?.['message']).startsWith('waiting'), 'pending');
    assert.equal(programmed()!['status'], 'Unknown');
    assert.equal(programmed()!['reason'], 'Pending');
  });

  it('acked: True', async () => {
    h.programs.set({ gateway: KEY, state: 'acked', connected: 2 });
    await h.until(() => programmed()?.['status'] === 'True', 'acked');
    assert.equal(programmed()!['reason'], 'Programmed');
    assert.equal(programmed()!['observedGeneration'], 1);
    assert.deepEqual(events('ProxyRejected'), []);
  });

  it('rejected: False, ProxyRejected, the first error detail, and one Warning Event', async () => {
    const detail = 'Error adding/updating listener(s) proxy_protocol_inbound: unknown field';
    h.programs.set({ gateway: KEY, state: 'rejected', connected: 1, proxy: 'w-5f7c9-abcde', detail });
    await h.until(() => programmed()?.['status'] === 'False', 'rejected');
    assert.equal(programmed()!['reason'], 'ProxyRejected');
    assert.equal(programmed()!['message'], `w-5f7c9-abcde: ${detail}`);
    await h.until(() => events('ProxyRejected').length > 0, 'the Event');
    const [e] = events('ProxyRejected');
    assert.equal(e!['type'], 'Warning');
    assert.equal(e!['note'], `w-5f7c9-abcde: ${detail}`);
    assert.deepEqual(e!['regarding'], {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      namespace: 'shop',
      name: 'w',
      uid: gw()!.metadata.uid,
    });
    await h.controller.reconcile();
    assert.equal(h.api.writes({ verb: 'create', resource: 'events' }).length, 1, 'reported once');
  });

  it('back to acked: True again', async () => {
    h.programs.set({ gateway: KEY, state: 'acked', connected: 1 });
    await h.until(() => programmed()?.['status'] === 'True', 'acked again');
  });

  it('what the waypoint cannot carry: ServicesCarried False, and a Warning Event', async () => {
    const carried = () => conditionOf(gw(), 'aeraki.io/ServicesCarried');
    assert.equal(carried()!['status'], 'True');
    const line = 'Service shop/trpc port 9000 (tcp-metaprotocol-trpc): needs a MetaProtocol proxy image';
    h.coverage.set(KEY, [line]);
    await h.until(() => carried()?.['status'] === 'False', 'not carried');
    assert.equal(carried()!['reason'], 'NotCarried');
    assert.equal(carried()!['message'], line);
    await h.until(() => events('NotCarried').length === 1, 'the Event');
    assert.equal(events('NotCarried')[0]!['note'], `cannot carry: ${line}`);
  });
});
