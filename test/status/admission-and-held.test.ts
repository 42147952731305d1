// Status of what the controller renders although admission would refuse it (Accepted True, reason
// AdmissionWouldRefuse), and of what is held: a MetaRouter invalid from the start holds nothing (its Programmed
// message says none of its routes is served); a VirtualService invalid from the start holds the ServiceEntries of
// its own namespace, which get a Held Event naming it, and never one of another namespace.
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

  it('a MetaRouter invalid from the start holds nothing: the ServiceEntry is rendered, no Held Event', () => {
    for (const namespace of ['shop', 'other']) {
      const router: ObjectRef = { ...ROUTER, namespace };
      const view = storeOf([svc]);
      const invalid = issue(router, 'spec.routes[0].route[0].destination.host', 'invalid');
      view.reject(router, [invalid], [HOST]);
      const generated = generateAll(view, createGenerators(), { namespaceScope: false });
      assert.ok(!generated.failedSources.has('ServiceEntry/shop/svc'), namespace);
      assert.ok(generated.objects.length > 0, namespace);
      const rejected = view.rejected();
      const t: StatusTarget = { ...target, ref: router };
      const p = planStatus({ view, rejected, issues: generated.issues, targets: [t], now: NOW });
      const programmed = p.patches[0]?.status.conditions.find((c) => c.type === 'Programmed');
      assert.equal(programmed?.reason, 'Invalid');
      assert.equal(
        programmed?.message,
        'the spec is invalid and no valid version is known: none of its routes is served (its hosts get the ' +
          'default route, their ServiceEntries are rendered as they are)',
      );
      assert.deepEqual(
        p.events.map((e) => [e.ref.kind, e.ref.name, e.reason]),
        [['MetaRouter', 'r', 'Invalid']],
      );
    }
  });

  it('a VirtualService invalid from the start holds the ServiceEntries of its namespace only: a Held Event', () => {
    const generated = (namespace: string) => {
      const view = storeOf([svc]);
      const vs: ObjectRef = { kind: 'VirtualService', namespace, name: 'vs' };
      view.reject(vs, [issue(vs, 'spec.http', 'invalid')], [HOST]);
      return { view, out: generateAll(view, createGenerators(), { namespaceScope: false }) };
    };
    const other = generated('other').out;
    assert.ok(!other.failedSources.has('ServiceEntry/shop/svc'), 'another namespace holds nothing');
    assert.deepEqual(
      other.issues.filter((i) => i.message.startsWith('held: ')),
      [],
    );

    const { view, out } = generated('shop');
    assert.ok(out.failedSources.has('ServiceEntry/shop/svc'));
    const p = planStatus({ view, rejected: view.rejected(), issues: out.issues, targets: [], now: NOW });
    assert.deepEqual(
      p.events.map((e) => [e.ref.kind, e.ref.name, e.reason, e.uid, e.note]),
      [
        [
          'ServiceEntry',
          'svc',
          'Held',
          'uid-svc',
          'spec.hosts: held: VirtualService shop/vs is invalid: ' +
            'not rendered until fixed (what was written before stays)',
        ],
        ['VirtualService', 'vs', 'Invalid', undefined, 'spec.http: invalid'],
      ],
    );
  });
});
