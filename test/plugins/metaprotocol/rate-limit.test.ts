import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MetaRouterSpec } from '../../../src/model/objects.ts';
import { formatIssue } from '../../../src/model/result.ts';
import { createMetaProtocolGenerator } from '../../../src/plugins/metaprotocol/index.ts';
import { metaRouter } from '../../support/builders.ts';
import { DEMO_HOST, demoServiceEntry, draftNamed, proxyConfig, sidecarContext, unwrap } from './support.ts';

const gen = createMetaProtocolGenerator();
const INBOUND = `aeraki-inbound-${DEMO_HOST}-20880`;

function inboundFilters(spec: Partial<MetaRouterSpec>): { name: string; config?: Record<string, unknown> }[] {
  const mr = metaRouter('metaprotocol', 'mr', { hosts: [DEMO_HOST], ...spec });
  const drafts = unwrap(gen.generateSidecar(sidecarContext(demoServiceEntry(), 0, { metaRouter: mr })));
  return proxyConfig(draftNamed(drafts, INBOUND))['metaProtocolFilters'] as never;
}

describe('metaprotocol inbound rate limits', () => {
  it('local rate limit: zero values omitted, conditions without a bucket dropped, empty match is {}', () => {
    const [local] = inboundFilters({
      hosts: ['stat.prefix.host', DEMO_HOST],
      localRateLimit: {
        tokenBucket: { maxTokens: 0, tokensPerFill: 0, fillInterval: '0.500s' },
        conditions: [
          { match: { attributes: { a: { exact: 'x' } } } },
          { tokenBucket: { maxTokens: 3, tokensPerFill: 1, fillInterval: '2s' } },
        ],
      },
    });
    assert.deepEqual(local?.config, {
      '@type':
        'type.googleapis.com/aeraki.meta_protocol_proxy.filters.local_ratelimit.v1alpha.LocalRateLimit',
      statPrefix: 'stat.prefix.host',
      tokenBucket: { fillInterval: '0.500s' },
      conditions: [{ match: {}, tokenBucket: { maxTokens: 3, tokensPerFill: 1, fillInterval: '2s' } }],
    });
  });

  it('global rate limit: no match gives match {}, denyOnFail false is omitted', () => {
    const filters = inboundFilters({
      globalRateLimit: {
        domain: 'd',
        rateLimitService: 'rls',
        descriptors: [{ property: 'p', descriptorKey: 'k' }],
      },
    });
    assert.deepEqual(
      filters.map((f) => f.name),
      [
        'aeraki.meta_protocol.filters.ratelimit',
        'aeraki.meta_protocol.filters.metadata_exchange',
        'aeraki.meta_protocol.filters.istio_stats',
        'aeraki.meta_protocol.filters.router',
      ],
    );
    assert.deepEqual(filters[0]?.config, {
      '@type': 'type.googleapis.com/aeraki.meta_protocol_proxy.filters.ratelimit.v1alpha.RateLimit',
      match: {},
      domain: 'd',
      rateLimitService: { grpcService: { envoyGrpc: { clusterName: 'rls' } } },
      descriptors: [{ property: 'p', descriptorKey: 'k' }],
    });
  });

  it('attribute matchers: sorted; null and regex * are presentMatch; empty exact kept; empty match skipped', () => {
    const [global] = inboundFilters({
      globalRateLimit: {
        domain: 'd',
        rateLimitService: 'rls',
        descriptors: [{ property: 'p', descriptorKey: 'k' }],
        match: {
          attributes: {
            zeta: { regex: '*' },
            alpha: null,
            mid: { exact: '' },
            beta: { prefix: 'pre' },
            gamma: { regex: 'a.*b' },
            skipped: {},
          },
        },
      },
    });
    assert.deepEqual((global?.config?.['match'] as { metadata: unknown }).metadata, [
      { name: 'alpha', presentMatch: true },
      { name: 'beta', prefixMatch: 'pre' },
      { name: 'gamma', safeRegexMatch: { googleRe2: {}, regex: 'a.*b' } },
      { name: 'mid', exactMatch: '' },
      { name: 'zeta', presentMatch: true },
    ]);
  });

  it('rate-limit config errors are issues on the MetaRouter and fail the context', () => {
    const mr = metaRouter('metaprotocol', 'bad', {
      hosts: [DEMO_HOST],
      localRateLimit: { conditions: [] },
      globalRateLimit: { domain: 'd', rateLimitService: 'r', descriptors: [] },
    });
    const r = gen.generateSidecar(sidecarContext(demoServiceEntry(), 0, { metaRouter: mr }));
    assert.equal(r.ok, false);
    assert.deepEqual(
      r.issues.map(formatIssue).map((s) => s.split(': ').slice(0, 2).join(': ')),
      [
        'MetaRouter metaprotocol/bad: spec.localRateLimit',
        'MetaRouter metaprotocol/bad: spec.globalRateLimit.descriptors',
      ],
    );
  });
});
