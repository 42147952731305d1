import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FilterDraft } from '../../../src/model/generator.ts';
import { fail, issue, ok, type Result } from '../../../src/model/result.ts';
import type { DubboProxyConfig } from '../../../src/plugins/dubbo/filters.ts';
import {
  createDubboGenerator,
  DUBBO_RBAC_FILTER,
  type DubboFilter,
} from '../../../src/plugins/dubbo/index.ts';
import { serviceEntry } from '../../support/builders.ts';
import { sidecarContext } from './fixture-context.ts';

const HOST = 'demo.dubbo.svc.cluster.local';

function se() {
  return serviceEntry(
    'dubbo',
    'demo',
    {
      hosts: [HOST],
      addresses: ['240.240.0.1'],
      ports: [{ number: 20880, name: 'tcp-dubbo', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'demo' } },
    },
    { annotations: { interface: 'com.example.Demo' } },
  );
}

function values(result: Result<readonly FilterDraft[]>): Record<string, DubboProxyConfig> {
  assert.ok(result.ok, JSON.stringify(result.issues));
  const out: Record<string, DubboProxyConfig> = {};
  for (const d of result.value) {
    out[d.name] = (
      d.spec.configPatches[0]?.patch.value as { typed_config: { value: DubboProxyConfig } }
    ).typed_config.value;
  }
  return out;
}

describe('dubbo inbound filters seam (DubboAuthorizationPolicy RBAC)', () => {
  const rbac: DubboFilter = {
    name: DUBBO_RBAC_FILTER,
    config: {
      '@type': 'type.googleapis.com/envoy.extensions.filters.network.rbac.v3.RBAC',
      statPrefix: 'dubbo.',
      rules: { action: 'DENY', policies: {} },
    },
  };

  it('places the filters before the router on the inbound proxy only', () => {
    const seen: string[] = [];
    const generator = createDubboGenerator({
      inboundFilters: (ctx) => {
        seen.push(`${ctx.serviceEntry.metadata.name}:${ctx.port.number}`);
        return ok([rbac]);
      },
    });
    const result = generator.generateSidecar(sidecarContext(se(), 0));
    const v = values(result);
    assert.deepEqual(seen, ['demo:20880']);
    assert.deepEqual(v[`aeraki-inbound-${HOST}-20880`]!.dubboFilters, [
      rbac,
      { name: 'envoy.filters.dubbo.router' },
    ]);
    assert.deepEqual(v[`aeraki-outbound-${HOST}-240.240.0.1-20880`]!.dubboFilters, [
      { name: 'envoy.filters.dubbo.router' },
    ]);
  });

  it('passes issues on, and fails the ServiceEntry when the filters cannot be built', () => {
    const ref = { kind: 'DubboAuthorizationPolicy', namespace: 'dubbo', name: 'deny-all' };
    const warn = issue(ref, 'spec.rules[0]', 'rule skipped');
    const okResult = createDubboGenerator({ inboundFilters: () => ok([rbac], [warn]) }).generateSidecar(
      sidecarContext(se(), 0),
    );
    assert.ok(okResult.ok);
    assert.deepEqual(okResult.issues, [warn]);
    const failed = createDubboGenerator({ inboundFilters: () => fail([warn]) }).generateSidecar(
      sidecarContext(se(), 0),
    );
    assert.equal(failed.ok, false);
    assert.deepEqual(failed.issues, [warn]);
  });
});
