// /debug/config: every kind of the store, DubboAuthorizationPolicies included, and the rejected objects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configDocument } from '../../src/app/debug.ts';
import { parseRawObjects, fillStore } from '../../src/controller/file-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { PARSE_OPTIONS, PLUGIN_KINDS } from '../support/kinds.ts';

describe('/debug/config', () => {
  it('lists DubboAuthorizationPolicies and the rejected ones with their field', () => {
    const policy = (name: string, spec: unknown) => ({
      apiVersion: 'dubbo.aeraki.io/v1alpha1',
      kind: 'DubboAuthorizationPolicy',
      metadata: { name, namespace: 'rpc' },
      spec,
    });
    const store = new ConfigStore({ rootNamespace: 'istio-system', kinds: PLUGIN_KINDS });
    fillStore(
      store,
      parseRawObjects(
        [policy('ok', { action: 'DENY' }), policy('bad', { action: 'AUDIT' })],
        'istio-system',
        [],
        PARSE_OPTIONS,
      ),
    );
    const doc = configDocument(store, true) as {
      objects: Record<string, { metadata: { name: string }; spec: unknown }[]>;
      rejected: { issues: string[] }[];
    };
    assert.deepEqual(
      doc.objects['DubboAuthorizationPolicy']?.map((p) => [p.metadata.name, p.spec]),
      [['ok', { action: 'DENY', rules: [] }]],
    );
    assert.deepEqual(
      doc.rejected.flatMap((r) => r.issues),
      ['DubboAuthorizationPolicy rpc/bad: spec.action: must be ALLOW or DENY, got string "AUDIT"'],
    );
  });
});
