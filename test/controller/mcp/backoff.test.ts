import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Backoff } from '../../../src/util/backoff.ts';
import { ManualClock } from '../../../src/util/clock.ts';
import { usesTls } from '../../../src/controller/mcp/transport.ts';
import { parseTypeUrl, subscribedTypeUrls } from '../../../src/controller/mcp/type-urls.ts';
import { nodeId } from '../../../src/controller/mcp/node.ts';

describe('Backoff', () => {
  it('grows by the multiplier from 0.5 s and caps at 60 s (no jitter at random 0.5)', () => {
    const b = new Backoff({ random: () => 0.5 });
    const delays = Array.from({ length: 14 }, () => b.next());
    assert.deepEqual(delays.slice(0, 4), [500, 750, 1125, 1688]);
    assert.equal(delays.at(-1), 60_000);
    assert.ok(delays.every((d, i) => i === 0 || d >= (delays[i - 1] ?? 0)));
    assert.equal(b.attempts, 14);
    b.reset();
    assert.equal(b.next(), 500);
  });

  it('jitters within ±50 % and never exceeds the cap', () => {
    const low = new Backoff({ random: () => 0 });
    const high = new Backoff({ random: () => 0.999999 });
    assert.equal(low.next(), 250);
    assert.equal(high.next(), 750);
    for (let i = 0; i < 30; i++) assert.ok(high.next() <= 60_000);
  });
});

describe('ManualClock', () => {
  it('fires due timers in time order when advanced, and not before', () => {
    const c = new ManualClock(100);
    const fired: string[] = [];
    c.setTimeout(() => fired.push('b'), 20);
    const h = c.setTimeout(() => fired.push('x'), 5);
    c.setTimeout(() => {
      fired.push(`a@${c.now()}`);
      c.setTimeout(() => fired.push('nested'), 1);
    }, 10);
    c.clearTimeout(h);
    c.advance(9);
    assert.deepEqual(fired, []);
    c.advance(11);
    assert.deepEqual(fired, ['a@110', 'nested', 'b']);
    assert.equal(c.now(), 120);
    assert.equal(c.pending(), 0);
  });
});

describe('MCP type URLs, node id and transport choice', () => {
  it('subscribes per mode and parses type URLs', () => {
    assert.deepEqual(
      subscribedTypeUrls('v1').map((t) => t.url),
      ['ServiceEntry', 'VirtualService', 'DestinationRule', 'Gateway'].map(
        (k) => `networking.istio.io/v1/${k}`,
      ),
    );
    assert.equal(subscribedTypeUrls('auto').length, 8);
    assert.deepEqual(parseTypeUrl('networking.istio.io/v1alpha3/Gateway'), {
      url: 'networking.istio.io/v1alpha3/Gateway',
      kind: 'Gateway',
      version: 'v1alpha3',
      apiVersion: 'networking.istio.io/v1alpha3',
    });
    assert.equal(parseTypeUrl('networking.istio.io/v1alpha3/EnvoyFilter'), undefined);
    assert.equal(parseTypeUrl('core/v1alpha1/MeshConfig'), undefined);
  });

  it('builds the node id like adsc and picks plaintext only for port 15010 in auto mode', () => {
    assert.equal(
      nodeId({ podName: 'aeraki-1', namespace: 'istio-system', podIp: '10.0.0.5' }),
      'sidecar~10.0.0.5~aeraki-1.istio-system~istio-system.svc.cluster.local',
    );
    assert.equal(usesTls('istiod.istio-system:15010', 'auto'), false);
    assert.equal(usesTls('istiod.istio-system.svc:15012', 'auto'), true);
    assert.equal(usesTls('istiod.istio-system:15012', false), false);
  });
});
