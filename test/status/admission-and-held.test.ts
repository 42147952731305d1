// Status of what the controller renders although admission would refuse it (Accepted True, reason
// AdmissionWouldRefuse), and of what is held: the holding MetaRouter's Programmed message names the held
// ServiceEntry, which gets a Held Event naming the invalid object.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { issue, type ObjectRef } from '../../src/model/result.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { planStatus } from '../../src/status/plan.ts';
import type { StatusTarget } from '../../src/status/types.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';

const NOW = '2026-02-03T04:05:06Z';
const HOST = 'svc.shop.svc.cluster.local';
const ROUTER: ObjectRef = { kind: 'MetaRouter', namespace: 'shop', name: 'r' };
const target: StatusTarget = { ref: ROUTER, generation: 2, uid: 'uid-r', status: undefined };
const svc = serviceEntry(
  'shop',
  'svc',
  { hosts: [HOST], addresses: ['240.240.0.1'], ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }] },
  { uid: 'uid-svc' },
);
const destination = (subset: string, weight: number) => ({ destination: { host: HOST, subset }, weight });

describe('status: admission would refuse, held objects', () => {
  it('a MetaRouter rendered despite a rule of admission hygiene: Accepted True, reason AdmissionWouldRefuse', () => {
    const split = metaRouter('shop', 'r', {
      hosts: [HOST],
      routes: [
        { route: [destination('a', 30), destination('b', 30)], requestMutation: [], responseMutation: [] },
      ],
    });
    const view = storeOf([svc, split]);
    const p = planStatus({ view, rejected: [], issues: [], targets: [target], now: NOW });
    const accepted = p.patches[0]?.status.conditions.find((c) => c.type === 'Accepted');
    assert.deepEqual(accepted && { ...accepted, lastTransitionTime: '' }, {
      type: 'Accepted',
      status: 'True',
      reason: 'AdmissionWouldRefuse',
      message:
        "admission would refuse it; rendered as Aeraki's controller renders it: spec.routes[0].route: the weights " +
        'of several destinations must add up to 100, got 60: traffic is split in proportion to them',
      lastTransitionTime: '',
      observedGeneration: 2,
    });
    assert.deepEqual(p.events, []);
  });

  it('a MetaRouter invalid from the start: Programmed names the ServiceEntry it holds, which gets a Held Event', () => {
    const view = storeOf([svc]);
    const invalid = issue(ROUTER, 'spec.routes[0].route[0].destination.host', 'invalid');
    view.reject(ROUTER, [invalid], [HOST]);
    const generated = generateAll(view, createGenerators(), { namespaceScope: false });
    const rejected = view.rejected();
    const p = planStatus({ view, rejected, issues: generated.issues, targets: [target], now: NOW });
    const programmed = p.patches[0]?.status.conditions.find((c) => c.type === 'Programmed');
    assert.equal(programmed?.reason, 'Invalid');
    assert.match(
      programmed?.message ?? '',
      /\(their routes withheld, their filters kept\): held ServiceEntry shop\/svc$/,
    );
    assert.deepEqual(
      p.events.map((e) => [e.ref.kind, e.ref.name, e.reason, e.uid, e.note]),
      [
        ['MetaRouter', 'r', 'Invalid', 'uid-r', 'spec.routes[0].route[0].destination.host: invalid'],
        [
          'ServiceEntry',
          'svc',
          'Held',
          'uid-svc',
          'spec.hosts: held: MetaRouter shop/r is invalid: not rendered until fixed (what was written before stays)',
        ],
      ],
    );
  });
});
