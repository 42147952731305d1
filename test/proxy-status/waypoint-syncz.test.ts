// Waypoint proxies in the fake istiod's syncz answers, in both forms istiod gives (ids `<pod>.<ns>` as istiod keeps
// them): `istio.io/debug` + `syncz` (/debug/syncz JSON with `proxy_type: waypoint`) and `istio.io/debug/syncz`
// (ClientConfig, no type). Asked over a real stream, decoded, and attributed to the waypoint EnvoyFilters that
// `render --waypoint-envoyfilters` prints for test/fixtures/waypoint/01.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AdsStream } from '../../src/controller/mcp/transport.ts';
import type { EnvoyFilterObject } from '../../src/model/objects.ts';
import { attributeRejections, indexEnvoyFilters } from '../../src/proxy-status/attribute.ts';
import { decodeDebugSyncz, decodeSyncz, type DecodeResult } from '../../src/proxy-status/decode.ts';
import type { FakeIstiod } from '../fakes/istiod/server.ts';
import { podProxyId, proxyId, type FakeProxy } from '../fakes/istiod/syncz.ts';
import { repoRoot } from '../app/fixture-cases.ts';
import { askOnce, NODE, ROOT_IDENTITY, tlsIstiod, transportFor, type Outcome } from './support.ts';

const FILTERS = (
  JSON.parse(
    readFileSync(
      path.join(
        repoRoot,
        'test/fixtures/waypoint/01-dubbo-service-namespace-binding/expected-envoyfilters.json',
      ),
      'utf8',
    ),
  ) as { items: EnvoyFilterObject[] }
).items;

const CHAIN = 'inbound-vip|20880|tcp|orders.shop.svc.cluster.local';
const REJECTED = `Error adding/updating listener(s) main_internal: filter chain '${CHAIN}': Proto constraint validation failed (DubboProxyValidationError.StatPrefix: value length must be at least 1 characters)`;
const WAYPOINT_POD = 'waypoint-5b7c9d8f6-x2k4p';

const PROXIES: FakeProxy[] = [
  { id: proxyId('orders-6c8d7e9f5-q1w2e', 'web'), namespace: 'web', lds: 'SYNCED' },
  {
    id: podProxyId(WAYPOINT_POD, 'shop'),
    namespace: 'shop',
    type: 'waypoint',
    lds: 'ERROR',
    ldsError: REJECTED,
  },
];

function askDebug(stream: AdsStream): Promise<Outcome> {
  return new Promise((resolve) => {
    stream.once('data', (answer: Outcome & { typeUrl?: string }) => resolve({ answer }));
    stream.once('error', (error: { code?: number; details?: string }) => resolve({ error }));
    stream.write({ typeUrl: 'istio.io/debug', node: NODE, resourceNames: ['syncz'] });
  });
}

describe("fake istiod's syncz with a waypoint rejecting a chain of main_internal", () => {
  let fake: FakeIstiod;
  before(async () => {
    fake = await tlsIstiod();
    fake.syncz.proxies = PROXIES;
  });
  after(() => fake.close());

  async function answer(detailed: boolean): Promise<DecodeResult> {
    const t = transportFor(fake, { spiffe: ROOT_IDENTITY });
    try {
      const stream = await t.open();
      const out = detailed ? await askDebug(stream) : await askOnce(stream);
      stream.cancel();
      assert.ok('answer' in out, JSON.stringify(out));
      const resources = out.answer.resources ?? [];
      return detailed ? decodeDebugSyncz(resources) : decodeSyncz(resources);
    } finally {
      t.close();
    }
  }

  const index = indexEnvoyFilters(FILTERS, 'istio-system');
  const expected = [
    {
      source: 'Service/shop/orders',
      reason: 'ProxyRejected',
      proxies: 1,
      namespaces: ['shop'],
      firstProxy: `${WAYPOINT_POD}.shop`,
      firstError: REJECTED,
    },
  ];

  it('/debug/syncz JSON: type waypoint; attributed to the source of the waypoint filter of that chain', async () => {
    const decoded = await answer(true);
    assert.ok(decoded.ok);
    assert.deepEqual(
      decoded.proxies.map((p) => [p.id, p.namespace, p.type, p.listeners]),
      [
        [PROXIES[0]!.id, 'web', 'sidecar', 'SYNCED'],
        [`${WAYPOINT_POD}.shop`, 'shop', 'waypoint', 'ERROR'],
      ],
    );
    assert.deepEqual(attributeRejections(decoded.proxies, index), expected);
  });

  it('ClientConfig (no type): the message names main_internal and the chain; attributed the same', async () => {
    const decoded = await answer(false);
    assert.ok(decoded.ok);
    assert.equal(decoded.proxies[1]?.type, undefined);
    assert.equal(decoded.proxies[1]?.namespace, 'shop');
    assert.deepEqual(attributeRejections(decoded.proxies, index), expected);
  });
});
