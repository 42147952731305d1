// The proxy-status part of `aeraki serve` against the fake istiod: asks on its own TLS stream with the MCP
// credentials, attributes the answer to the desired EnvoyFilters, fills the rejections and the metrics.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { buildProxyStatus, PLAINTEXT_HINT } from '../../src/app/proxy-status.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import type { EnvoyFilterObject } from '../../src/model/objects.ts';
import { AerakiMetrics } from '../../src/ops/metrics.ts';
import { outboundPatch } from '../../src/plugins/sdk/patches.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { FakeIstiod } from '../fakes/istiod/server.ts';
import { proxyId } from '../fakes/istiod/syncz.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { waitFor } from '../e2e/support.ts';
import { testCa } from '../fakes/test-ca.ts';
import { tlsIstiod } from '../proxy-status/support.ts';

const FILTER: EnvoyFilterObject = {
  apiVersion: 'networking.istio.io/v1alpha3',
  kind: 'EnvoyFilter',
  metadata: {
    name: 'meta-dubbo',
    namespace: 'istio-system',
    labels: {},
    annotations: { [SOURCE_ANNOTATION]: 'ServiceEntry/shop/dubbo' },
  },
  spec: {
    configPatches: [
      outboundPatch('10.96.10.20', 20880, {
        filterName: 'envoy.filters.network.meta_protocol_proxy',
        typeUrl: 'type.googleapis.com/aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy',
        config: {},
      }),
    ],
  },
};

describe('app/proxy-status', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'proxy-status-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is off with interval 0', () => {
    const part = buildProxyStatus(
      {
        proxyStatus: { intervalMs: 0 },
        source: {} as never,
        mesh: {} as never,
        podName: 'p',
        output: {
          kind: 'kube',
          dir: '',
          namespaceScope: false,
          waypointFilters: false,
          metaProtocolImages: [],
        },
      },
      {
        desired: () => [],
        metrics: new AerakiMetrics({ defaultMetrics: false }).proxyStatus,
        logger: silentLogger,
      },
    );
    assert.equal(part, undefined);
  });

  it('is off when EnvoyFilters are not written to the API server (--output dir)', () => {
    const part = buildProxyStatus(
      {
        proxyStatus: { intervalMs: 30_000 },
        source: {} as never,
        mesh: {} as never,
        podName: 'p',
        output: {
          kind: 'dir',
          dir: '/tmp/out',
          namespaceScope: false,
          waypointFilters: false,
          metaProtocolImages: [],
        },
      },
      {
        desired: () => [],
        metrics: new AerakiMetrics({ defaultMetrics: false }).proxyStatus,
        logger: silentLogger,
      },
    );
    assert.equal(part, undefined);
  });

  it('reports the rejection of a listener an EnvoyFilter patches, and clears it once the proxy takes it', async () => {
    const fake = await tlsIstiod(false);
    fake.syncz.tokens.set('aeraki-token', 'istio-system');
    const error = 'Error adding/updating listener(s) 10.96.10.20_20880: proto constraint validation failed';
    fake.syncz.proxies = [
      { id: proxyId('web-1', 'web'), namespace: 'web', lds: 'ERROR', ldsError: error },
      { id: proxyId('web-2', 'web'), namespace: 'web', lds: 'SYNCED' },
    ];
    writeFileSync(path.join(dir, 'root.pem'), testCa().ca);
    writeFileSync(path.join(dir, 'token'), 'aeraki-token');
    const metrics = new AerakiMetrics({ defaultMetrics: false });
    const part = buildProxyStatus(
      {
        proxyStatus: { intervalMs: 100 },
        output: {
          kind: 'kube',
          dir: '',
          namespaceScope: false,
          waypointFilters: false,
          metaProtocolImages: [],
        },
        source: {
          kind: 'mcp',
          istiodAddress: `localhost:${fake.port}`,
          istiodTls: true,
          istiodRootCertFile: path.join(dir, 'root.pem'),
          istiodTokenFile: path.join(dir, 'token'),
          dir: '',
          watchDebounceMs: 0,
          secretRefreshMs: 60_000,
        },
        mesh: { rootNamespace: 'istio-system', clusterDomain: 'cluster.local' } as never,
        podName: 'aeraki-0',
      },
      { desired: () => [FILTER], metrics: metrics.proxyStatus, logger: silentLogger },
    );
    assert.ok(part);
    const changes: number[] = [];
    part.rejections.subscribe((r) => changes.push(r.length));
    part.start();
    try {
      await fake.waitFor(() => changes.length === 1, 'the rejection');
      assert.deepEqual(part.rejections.current(), [
        {
          source: 'ServiceEntry/shop/dubbo',
          reason: 'ProxyRejected',
          proxies: 1,
          namespaces: ['web'],
          firstProxy: proxyId('web-1', 'web'),
          firstError: error,
        },
      ]);
      const doc = part.document();
      assert.equal(doc.state, 'answering');
      assert.equal(doc.proxiesReported, 2);
      assert.ok(doc.answeredAt && !Number.isNaN(Date.parse(doc.answeredAt)), doc.answeredAt);
      assert.deepEqual(doc.sources, part.rejections.current());
      assert.deepEqual(doc.proxies, [
        {
          id: proxyId('web-1', 'web'),
          namespace: 'web',
          reason: 'ProxyRejected',
          listeners: ['10.96.10.20_20880'],
          errorDetail: error,
          sources: ['ServiceEntry/shop/dubbo'],
        },
      ]);
      const text = await metrics.registry.metrics();
      assert.match(text, /aeraki_listener_rejections\{reason="ProxyRejected"\} 1/);
      assert.match(text, /aeraki_listener_rejecting_proxies\{reason="ProxyRejected"\} 1/);
      fake.syncz.proxies = [{ id: proxyId('web-1', 'web'), namespace: 'web', lds: 'SYNCED' }];
      const waitClear = new Promise<void>((resolve) =>
        part.rejections.subscribe((r) => r.length === 0 && resolve()),
      );
      await waitClear;
      assert.deepEqual(part.rejections.current(), []);
      assert.deepEqual(part.document().proxies, []);
      assert.equal(fake.streams.length, 1, 'one stream of its own for every question');
      assert.equal(fake.streams[0]!.authorization, 'Bearer aeraki-token');
    } finally {
      part.stop();
      await fake.close();
    }
  });

  it('plaintext (the default port 15010): answered; an istiod restricting syncz is warned about with the TLS advice', async () => {
    const fake = await FakeIstiod.start();
    const error = 'Error adding/updating listener(s) 10.96.10.20_20880: bad';
    fake.syncz.proxies = [{ id: proxyId('web-1', 'web'), namespace: 'web', lds: 'ERROR', ldsError: error }];
    const log = recordingLogger();
    const options = (): Parameters<typeof buildProxyStatus>[0] => ({
      proxyStatus: { intervalMs: 100 },
      output: {
        kind: 'kube',
        dir: '',
        namespaceScope: false,
        waypointFilters: false,
        metaProtocolImages: [],
      },
      source: {
        kind: 'mcp',
        istiodAddress: fake.address,
        istiodTls: false,
        istiodRootCertFile: '',
        istiodTokenFile: '',
        dir: '',
        watchDebounceMs: 0,
        secretRefreshMs: 60_000,
      },
      mesh: { rootNamespace: 'istio-system', clusterDomain: 'cluster.local' } as never,
      podName: 'aeraki-0',
    });
    const deps = {
      desired: () => [FILTER],
      metrics: new AerakiMetrics({ defaultMetrics: false }).proxyStatus,
      logger: log,
    };
    const part = buildProxyStatus(options(), deps);
    assert.ok(part);
    const seen = new Promise<void>((resolve) => part.rejections.subscribe(() => resolve()));
    part.start();
    try {
      await seen;
      assert.equal(part.rejections.current()[0]?.source, 'ServiceEntry/shop/dubbo');
    } finally {
      part.stop();
    }
    fake.syncz.mode = 'restricted';
    const restricted = buildProxyStatus(options(), deps);
    assert.ok(restricted);
    restricted.start();
    try {
      await waitFor(() => log.records.some((r) => r.level === 'warn'), 'the warning');
      const [warning] = log.records.filter((r) => r.level === 'warn');
      assert.ok(warning?.message.endsWith(`; ${PLAINTEXT_HINT}`), warning?.message);
      assert.match(warning?.message ?? '', /refused istio\.io\/debug\/syncz/);
    } finally {
      restricted.stop();
      await fake.close();
    }
  });
});
