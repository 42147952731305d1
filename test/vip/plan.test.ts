// The pure VIP planner: Aeraki's sequence, reuse of written VIPs, duplicates, and what is never touched.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Protocol } from '../../src/model/protocol.ts';
import { isEligible, planVips, sequenceVip, vipOf, type VipServiceEntry } from '../../src/vip/plan.ts';

const HANDLED: ReadonlySet<Protocol> = new Set<Protocol>(['metaprotocol', 'dubbo', 'thrift']);

function se(
  name: string,
  o: {
    addresses?: string[];
    resolution?: string;
    ports?: string[];
    created?: string;
    namespace?: string;
  } = {},
): VipServiceEntry {
  return {
    kind: 'ServiceEntry',
    metadata: {
      namespace: o.namespace ?? 'shop',
      name,
      ...(o.created ? { creationTimestamp: o.created } : {}),
    },
    resolution: 'resolution' in o ? o.resolution : 'STATIC',
    addresses: o.addresses ?? [],
    portNames: o.ports ?? ['tcp-dubbo'],
  };
}

const vips = (plan: ReturnType<typeof planVips>) =>
  plan.updates.map((u) => [u.serviceEntry.metadata.name, u.vip, u.reason]);

describe('vip/plan: the sequence', () => {
  it('follows Aeraki: 240.240.<n/255>.<n%255>, skipping values that are 0 mod 255', () => {
    assert.equal(sequenceVip(1), '240.240.0.1');
    assert.equal(sequenceVip(254), '240.240.0.254');
    assert.equal(sequenceVip(255), undefined);
    assert.equal(sequenceVip(256), '240.240.1.1');
    assert.equal(sequenceVip(510), undefined);
    assert.equal(sequenceVip(255 * 255 - 1), '240.240.254.254');
    assert.equal(sequenceVip(255 * 255), undefined);
    assert.equal(sequenceVip(0), undefined);
  });

  it('recognises single addresses in 240.240.0.0/16 only', () => {
    assert.equal(vipOf('240.240.0.1'), '240.240.0.1');
    assert.equal(vipOf('240.240.3.7/32'), '240.240.3.7');
    assert.equal(vipOf('240.240.0.0/24'), undefined);
    assert.equal(vipOf('240.241.0.1'), undefined);
    assert.equal(vipOf('10.0.0.1'), undefined);
    assert.equal(vipOf('fd00::1'), undefined);
    assert.equal(vipOf('240.240.0.256'), undefined);
  });

  it('hands out the lowest free values in D6 precedence, crossing the skipped value', () => {
    const many = Array.from({ length: 256 }, (_, i) => se(`s${String(i).padStart(3, '0')}`));
    const plan = planVips([...many].reverse(), HANDLED);
    assert.equal(plan.updates.length, 256);
    assert.deepEqual(plan.updates[0]!.addresses, ['240.240.0.1']);
    assert.equal(plan.updates[0]!.serviceEntry.metadata.name, 's000');
    assert.equal(plan.updates[253]!.vip, '240.240.0.254');
    assert.equal(plan.updates[254]!.vip, '240.240.1.1', '240.240.0.255 and 240.240.1.0 are skipped');
    assert.equal(plan.updates[255]!.vip, '240.240.1.2');
    assert.equal(new Set(plan.updates.map((u) => u.vip)).size, 256);
  });

  it('orders by age first (oldest gets the lowest VIP), then namespace/name', () => {
    const plan = planVips(
      [
        se('a', { created: '2024-02-01T00:00:00Z' }),
        se('b', { created: '2024-01-01T00:00:00Z' }),
        se('c', { namespace: 'alpha' }),
      ],
      HANDLED,
    );
    assert.deepEqual(vips(plan), [
      ['b', '240.240.0.1', 'unaddressed'],
      ['a', '240.240.0.2', 'unaddressed'],
      ['c', '240.240.0.3', 'unaddressed'],
    ]);
  });
});

describe('vip/plan: existing addresses', () => {
  it('keeps VIPs held by one ServiceEntry and never hands them out again', () => {
    const plan = planVips(
      [se('x', { addresses: ['240.240.0.1'] }), se('y', { addresses: ['240.240.0.3'] }), se('new')],
      HANDLED,
    );
    assert.equal(plan.kept, 2);
    assert.deepEqual(vips(plan), [['new', '240.240.0.2', 'unaddressed']]);
  });

  it('plans nothing when every eligible ServiceEntry holds its own VIP', () => {
    const plan = planVips(
      [se('x', { addresses: ['240.240.0.1'] }), se('y', { addresses: ['240.240.7.200'] })],
      HANDLED,
    );
    assert.deepEqual(plan.updates, []);
    assert.equal(plan.kept, 2);
  });

  it('gives a shared VIP to the oldest holder and a new one to the others, keeping their other addresses', () => {
    const plan = planVips(
      [
        se('young', { addresses: ['240.240.0.1', '10.1.1.1'], created: '2024-03-01T00:00:00Z' }),
        se('old', { addresses: ['240.240.0.1'], created: '2024-01-01T00:00:00Z' }),
        se('undated', { addresses: ['240.240.0.1'] }),
      ],
      HANDLED,
    );
    assert.deepEqual(vips(plan), [
      ['young', '240.240.0.2', 'duplicate'],
      ['undated', '240.240.0.3', 'duplicate'],
    ]);
    assert.deepEqual(plan.updates[0]!.addresses, ['240.240.0.2', '10.1.1.1']);
    assert.equal(plan.kept, 1);
  });

  it('an ineligible older holder keeps its VIP unwritten; the eligible one moves', () => {
    const plan = planVips(
      [
        se('none', { addresses: ['240.240.0.1'], resolution: 'NONE', created: '2024-01-01T00:00:00Z' }),
        se('dubbo', { addresses: ['240.240.0.1'], created: '2024-02-01T00:00:00Z' }),
      ],
      HANDLED,
    );
    assert.deepEqual(vips(plan), [['dubbo', '240.240.0.2', 'duplicate']]);
  });

  it('leaves ServiceEntries whose first address is outside 240.240.0.0/16 alone', () => {
    const plan = planVips(
      [
        se('ip', { addresses: ['10.0.0.1'] }),
        se('v6', { addresses: ['fd00::1'] }),
        se('cidr', { addresses: ['240.240.0.0/30'] }),
        se('junk', { addresses: ['not-an-ip'] }),
      ],
      HANDLED,
    );
    assert.deepEqual(plan.updates, []);
    assert.equal(plan.kept, 0);
  });

  it('never hands out a value in use anywhere: later addresses, CIDRs, ineligible ServiceEntries', () => {
    const plan = planVips(
      [
        se('later', { addresses: ['10.0.0.1', '240.240.0.1'] }),
        se('block', { addresses: ['10.0.0.2', '240.240.0.0/30'] }), // .0 - .3
        se('tcp', { addresses: ['240.240.0.4'], ports: ['tcp-plain'] }),
        se('new'),
      ],
      HANDLED,
    );
    assert.deepEqual(vips(plan), [['new', '240.240.0.5', 'unaddressed']]);
  });
});

describe('vip/plan: what gets a VIP', () => {
  it("never resolution NONE (also when absent, Istio's default), only handled ports", () => {
    assert.equal(isEligible(se('a', { resolution: 'NONE' }), HANDLED), false);
    assert.equal(isEligible(se('a', { resolution: undefined }), HANDLED), false);
    assert.equal(isEligible(se('a', { resolution: 'DNS' }), HANDLED), true);
    assert.equal(
      isEligible(se('a', { ports: ['http-web', 'tcp-redis'] }), HANDLED),
      false,
      'redis unhandled',
    );
    assert.equal(isEligible(se('a', { ports: ['http-web', 'tcp-metaprotocol-x'] }), HANDLED), true);
    assert.equal(isEligible(se('a', { ports: [] }), HANDLED), false);
    const plan = planVips(
      [
        se('none', { resolution: 'NONE' }),
        se('absent', { resolution: undefined }),
        se('redis', { ports: ['tcp-redis'] }),
        se('thrift', { resolution: 'DNS', ports: ['tcp-thrift'] }),
      ],
      HANDLED,
    );
    assert.deepEqual(vips(plan), [['thrift', '240.240.0.1', 'unaddressed']]);
    const withRedis = planVips([se('redis', { ports: ['tcp-redis'] })], new Set<Protocol>(['redis']));
    assert.deepEqual(vips(withRedis), [['redis', '240.240.0.1', 'unaddressed']]);
  });

  it('reports exhaustion as an issue of each ServiceEntry left without a VIP', () => {
    const full: VipServiceEntry[] = [];
    for (let n = 1; n < 255 * 255; n++) {
      if (n % 255 === 0) continue;
      full.push(se(`h${n}`, { addresses: [`240.240.${Math.floor(n / 255)}.${n % 255}`] }));
    }
    const plan = planVips([...full, se('late-a'), se('late-b')], HANDLED);
    assert.deepEqual(plan.updates, []);
    assert.deepEqual(
      plan.issues.map((i) => [i.ref.name, i.path]),
      [
        ['late-a', 'spec.addresses'],
        ['late-b', 'spec.addresses'],
      ],
    );
    assert.match(plan.issues[0]!.message, /no free VIP left in 240\.240\.0\.0\/16/);
    // one value freed: the first in precedence gets it
    const freed = planVips([...full.slice(1), se('late-a'), se('late-b')], HANDLED);
    assert.deepEqual(vips(freed), [['late-a', '240.240.0.1', 'unaddressed']]);
    assert.equal(freed.issues.length, 1);
  });
});
