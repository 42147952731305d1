// The live analyzers, each code with a case that reports it and one that does not, over hand-built inputs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import yaml from 'js-yaml';
import { parseRawObjects } from '../../../src/model/parse/objects.ts';
import { createPluginKinds } from '../../../src/plugins/registry.ts';
import { LIVE_ANALYZERS } from '../../../src/analyze/live/index.ts';
import { subsetPodsAnalyzer } from '../../../src/analyze/live/subset-pods.ts';
import { ambientAnalyzer } from '../../../src/analyze/live/ambient.ts';
import { metaProtocolProxyAnalyzer } from '../../../src/analyze/live/meta-protocol-proxy.ts';
import { contribProxyAnalyzer } from '../../../src/analyze/live/contrib-proxy.ts';
import { istioVersionAnalyzer } from '../../../src/analyze/live/istio-version.ts';
import { orphanedAnalyzer } from '../../../src/analyze/live/orphaned.ts';
import { conflictingAnalyzer } from '../../../src/analyze/live/conflicting.ts';
import { unreadableAnalyzer } from '../../../src/analyze/live/unreadable-analyzer.ts';
import type { AnalysisInput, AnalysisMessage, Analyzer } from '../../../src/analyze/types.ts';
import type { AmbientView } from '../../../src/model/ambient/view.ts';
import { indexWaypoints, type WaypointGateway } from '../../../src/model/ambient/waypoint.ts';
import {
  cluster,
  filter,
  generatedFor,
  input,
  MPP,
  ORDERS,
  pod,
  PROXYV2,
  ROOT,
  serviceEntry,
} from './support.ts';

const codes = (a: Analyzer, i: AnalysisInput) => a.analyze(i).map((m) => m.code.code);
const one = (a: Analyzer, i: AnalysisInput): AnalysisMessage => {
  const out = a.analyze(i);
  assert.equal(out.length, 1, JSON.stringify(out.map((m) => m.message)));
  return out[0]!;
};

describe('live analyzers: the registry', () => {
  it('lists each code once, AER0101 to AER0109, live, with an example', () => {
    const all = LIVE_ANALYZERS.flatMap((a) => a.codes);
    assert.deepEqual(all.map((c) => c.code).sort(), [
      'AER0101',
      'AER0102',
      'AER0103',
      'AER0104',
      'AER0105',
      'AER0106',
      'AER0107',
      'AER0108',
      'AER0109',
    ]);
    for (const c of all) {
      assert.ok(c.live && c.example.includes('# In the cluster'), c.code);
      assert.match(c.name, /^[A-Z][A-Za-z]+$/);
    }
  });

  it('has examples whose objects parse without issues', () => {
    for (const c of LIVE_ANALYZERS.flatMap((a) => a.codes)) {
      const docs = yaml.loadAll(c.example).filter((d) => d !== null && d !== undefined);
      const parsed = parseRawObjects(docs, ROOT, [], {
        clusterDomain: 'cluster.local',
        kinds: createPluginKinds(),
      });
      assert.deepEqual(parsed.issues, [], c.code);
      assert.equal(parsed.objects.length, docs.length, c.code);
    }
  });

  it('reports nothing offline (no cluster facts)', () => {
    const offline = input({
      raws: [serviceEntry({ selector: { app: 'orders' } })],
      generated: generatedFor('ServiceEntry/shop/orders', 20880),
    });
    assert.deepEqual(
      LIVE_ANALYZERS.flatMap((a) => a.analyze(offline)),
      [],
    );
  });
});

describe('AER0101 SubsetSelectsNoPod', () => {
  const raws = [
    serviceEntry({ selector: { app: 'orders' } }),
    {
      apiVersion: 'networking.istio.io/v1',
      kind: 'DestinationRule',
      metadata: { namespace: 'shop', name: 'orders' },
      spec: { host: ORDERS, subsets: [{ name: 'v2', labels: { version: 'v2' } }] },
    },
    {
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'MetaRouter',
      metadata: { namespace: 'shop', name: 'orders' },
      spec: {
        hosts: [ORDERS],
        routes: [{ name: 'v2', route: [{ destination: { host: ORDERS, subset: 'v2' } }] }],
      },
    },
  ];

  it('reports a subset whose labels with the selector match no pod of the namespace', () => {
    const m = one(
      subsetPodsAnalyzer,
      input({
        raws,
        cluster: cluster({
          pods: [
            pod('shop', 'orders-v1', { app: 'orders', version: 'v1' }),
            pod('other', 'orders-v2', { app: 'orders', version: 'v2' }), // another namespace
            pod('shop', 'billing-v2', { app: 'billing', version: 'v2' }), // not selected by the service
          ],
        }),
      }),
    );
    assert.equal(m.code.code, 'AER0101');
    assert.deepEqual(m.ref, { kind: 'MetaRouter', namespace: 'shop', name: 'orders' });
    assert.equal(m.path, 'spec.routes[0].route[0].destination.subset');
    assert.match(m.message, /subset "v2" .*version=v2.*ServiceEntry shop\/orders \(app=orders\)/);
  });

  it('is silent when a pod matches, or when pods could not be read', () => {
    const pods = [pod('shop', 'orders-v2', { app: 'orders', version: 'v2', extra: 'x' })];
    assert.deepEqual(codes(subsetPodsAnalyzer, input({ raws, cluster: cluster({ pods }) })), []);
    const unreadable = cluster({ unreadable: [{ kind: 'Pod', reason: 'forbidden: list pods' }] });
    assert.deepEqual(codes(subsetPodsAnalyzer, input({ raws, cluster: unreadable })), []);
  });

  it('still reports when only another kind could not be read, whatever its reason says', () => {
    const other = cluster({ unreadable: [{ kind: 'MetaRouter', reason: 'Pod: not installed' }] });
    assert.deepEqual(codes(subsetPodsAnalyzer, input({ raws, cluster: other })), ['AER0101']);
  });
});

describe('AER0102 AmbientNamespace', () => {
  const raws = [serviceEntry({})];
  const generated = generatedFor('ServiceEntry/shop/orders', 20880);

  it('reports a handled service in a namespace in ambient mode', () => {
    const c = cluster({ namespaces: [{ name: 'shop', labels: { 'istio.io/dataplane-mode': 'ambient' } }] });
    const m = one(ambientAnalyzer, input({ raws, generated, cluster: c }));
    assert.deepEqual(m.ref, { kind: 'ServiceEntry', namespace: 'shop', name: 'orders' });
    assert.match(m.message, /ambient.*istio#43720.*2 sidecar EnvoyFilter/);
  });

  describe('points at --waypoint-envoyfilters and the waypoint', () => {
    const ambientLabels = { 'istio.io/dataplane-mode': 'ambient' };
    const c = cluster({ namespaces: [{ name: 'shop', labels: ambientLabels }] });
    const waypoint: WaypointGateway = {
      namespace: 'shop',
      name: 'waypoint',
      className: 'istio-waypoint',
      addressed: true,
      listeners: [{ port: 15008, protocol: 'HBONE' }],
    };
    const view = (labels: Record<string, string>, gateways: WaypointGateway[] = []): AmbientView => {
      const index = indexWaypoints(gateways);
      return {
        ambientNamespace: (name) => (name === 'shop' ? { name, labels } : undefined),
        waypoints: () => index,
      };
    };
    const bound = view({ ...ambientLabels, 'istio.io/use-waypoint': 'waypoint' }, [waypoint]);

    it('flag off, no waypoint: turn the flag on and bind to one', () => {
      const m = one(ambientAnalyzer, input({ raws, generated, cluster: c, ambient: view(ambientLabels) }));
      assert.match(
        m.message,
        /take no effect there; turn on --waypoint-envoyfilters and bind it to waypoint shop\/waypoint: label it or namespace shop istio.io\/use-waypoint=waypoint after creating it/,
      );
    });

    it('flag on, no waypoint: the waypoint to bind to', () => {
      const i = input({
        raws,
        generated,
        cluster: c,
        ambient: view(ambientLabels, [waypoint]),
        waypointFilters: true,
      });
      assert.match(
        one(ambientAnalyzer, i).message,
        /; bind it to waypoint shop\/waypoint: label it or namespace shop istio.io\/use-waypoint=waypoint$/,
      );
    });

    it('flag off, bound: turn the flag on for that waypoint; flag on, bound: silent', () => {
      const m = one(ambientAnalyzer, input({ raws, generated, cluster: c, ambient: bound }));
      assert.match(
        m.message,
        /; turn on --waypoint-envoyfilters to write its filters for waypoint shop\/waypoint, to which it is bound$/,
      );
      const on = input({ raws, generated, cluster: c, ambient: bound, waypointFilters: true });
      assert.deepEqual(codes(ambientAnalyzer, on), []);
    });
  });

  it('counts the selected pods without a sidecar, and is silent when every selected pod has one', () => {
    const raws = [serviceEntry({ selector: { app: 'orders' } })];
    const namespaces = [{ name: 'shop', labels: { 'istio.io/dataplane-mode': 'ambient' } }];
    const mixed = cluster({
      namespaces,
      pods: [pod('shop', 'orders-1', { app: 'orders' }, PROXYV2), pod('shop', 'orders-2', { app: 'orders' })],
    });
    assert.match(
      one(ambientAnalyzer, input({ raws, generated, cluster: mixed })).message,
      /\(1 pod\(s\) without one\)/,
    );
    const sidecars = cluster({ namespaces, pods: [pod('shop', 'orders-1', { app: 'orders' }, PROXYV2)] });
    assert.deepEqual(codes(ambientAnalyzer, input({ raws, generated, cluster: sidecars })), []);
  });

  it('is silent for a sidecar namespace and for a service nothing is written for', () => {
    const sidecar = cluster({ namespaces: [{ name: 'shop', labels: { 'istio-injection': 'enabled' } }] });
    assert.deepEqual(codes(ambientAnalyzer, input({ raws, generated, cluster: sidecar })), []);
    const ambient = cluster({
      namespaces: [{ name: 'shop', labels: { 'istio.io/dataplane-mode': 'ambient' } }],
    });
    assert.deepEqual(codes(ambientAnalyzer, input({ raws, cluster: ambient })), []);
  });
});

describe('AER0103 ProxyLacksMetaProtocol', () => {
  const raws = [serviceEntry({ selector: { app: 'orders' } })];
  const generated = generatedFor('ServiceEntry/shop/orders', 20880);

  it('groups the server and client pods without the MetaProtocol proxy per service', () => {
    const c = cluster({
      pods: [
        pod('shop', 'orders-1', { app: 'orders' }, PROXYV2),
        pod('shop', 'orders-2', { app: 'orders' }, MPP),
        pod('web', 'frontend-1', { app: 'web' }, PROXYV2),
        pod('web', 'frontend-2', { app: 'web' }, 'docker.io/istio/proxyv2:1.23.0'),
        pod('batch', 'job-1', { app: 'job' }), // no sidecar
        pod(ROOT, 'istio-ingressgateway-1', { istio: 'ingressgateway' }, PROXYV2), // a gateway
      ],
    });
    const m = one(metaProtocolProxyAnalyzer, input({ raws, generated, cluster: c }));
    assert.equal(m.code.severity, 'error');
    assert.equal(m.path, 'spec.ports[0].name');
    assert.match(m.message, /^3 pod\(s\) \(1 server, 2 client\) in namespace\(s\) shop, web /);
    assert.match(m.message, /docker\.io\/istio\/proxyv2:1\.24\.2 ×2, docker\.io\/istio\/proxyv2:1\.23\.0 ×1/);
  });

  it('is silent when every sidecar runs a MetaProtocol image (any tag, any spelling of the registry)', () => {
    const c = cluster({
      pods: [
        pod('shop', 'orders-1', { app: 'orders' }, 'ghcr.io/aeraki-mesh/meta-protocol-proxy:1.5.0'),
        pod('web', 'frontend-1', { app: 'web' }, 'aeraki/meta-protocol-proxy:1.0.1'),
      ],
    });
    assert.deepEqual(codes(metaProtocolProxyAnalyzer, input({ raws, generated, cluster: c })), []);
  });

  it('limits client pods to the namespaces of the outbound filters outside the root namespace', () => {
    const scoped = generatedFor('ServiceEntry/shop/orders', 20880).map((f) => ({ ...f, namespace: 'shop' }));
    const c = cluster({ pods: [pod('web', 'frontend-1', { app: 'web' }, PROXYV2)] });
    assert.deepEqual(codes(metaProtocolProxyAnalyzer, input({ raws, generated: scoped, cluster: c })), []);
  });
});

describe('AER0104 ProxyLacksContrib', () => {
  const raws = [
    serviceEntry({
      name: 'kafka',
      host: 'kafka.shop.svc.cluster.local',
      portName: 'tcp-kafka',
      port: 9092,
      selector: { app: 'kafka' },
    }),
  ];
  const generated = generatedFor('ServiceEntry/shop/kafka', 9092);

  it('reports Kafka sidecars that are not contrib builds, the MetaProtocol proxy included', () => {
    const c = cluster({ pods: [pod('shop', 'kafka-0', { app: 'kafka' }, MPP)] });
    const m = one(contribProxyAnalyzer, input({ raws, generated, cluster: c }));
    assert.equal(m.code.code, 'AER0104');
    assert.match(m.message, /without envoy\.filters\.network\.kafka_broker/);
  });

  it('is silent for contrib images and for services of other protocols', () => {
    const c = cluster({
      pods: [pod('shop', 'kafka-0', { app: 'kafka' }, 'envoyproxy/envoy-contrib:v1.33-latest')],
    });
    assert.deepEqual(codes(contribProxyAnalyzer, input({ raws, generated, cluster: c })), []);
    const meta = input({
      raws: [serviceEntry({ selector: { app: 'kafka' } })],
      generated: generatedFor('ServiceEntry/shop/orders', 20880),
      cluster: cluster({ pods: [pod('shop', 'kafka-0', { app: 'kafka' }, PROXYV2)] }),
    });
    assert.deepEqual(codes(contribProxyAnalyzer, meta), []);
  });
});

describe('AER0105 UnsupportedIstioVersion, AER0109 IstioVersionUnknown', () => {
  const at = (istiodVersion: string) =>
    codes(istioVersionAnalyzer, input({ cluster: cluster({ istiodVersion }) }));

  it('warns outside 1.22 to 1.31, both ends', () => {
    assert.deepEqual(at('1.18.1'), ['AER0105']);
    assert.deepEqual(at('1.32.0'), ['AER0105']);
    assert.match(
      istioVersionAnalyzer.analyze(input({ cluster: cluster({ istiodVersion: '1.21.6' }) }))[0]!.message,
      /older than 1\.22/,
    );
  });

  it('is silent inside the range', () => {
    assert.deepEqual(at('1.22.0'), []);
    assert.deepEqual(at('1.31.0-rc.0'), []);
  });

  it('says so when the version is unknown or names no release', () => {
    const c = cluster();
    const { istiodVersion: _, ...without } = c;
    assert.deepEqual(codes(istioVersionAnalyzer, input({ cluster: without })), ['AER0109']);
    assert.deepEqual(at('latest'), ['AER0109']);
  });
});

describe('AER0106 OrphanedEnvoyFilter', () => {
  const raws = [serviceEntry({})];
  const generated = generatedFor('ServiceEntry/shop/orders', 20880);

  it('reports a managed EnvoyFilter nothing produces', () => {
    const stale = filter(ROOT, 'aeraki-outbound-old', [], { source: 'ServiceEntry/shop/gone' });
    const m = one(
      orphanedAnalyzer,
      input({ raws, generated, cluster: cluster({ envoyFilters: [...generated, stale] }) }),
    );
    assert.deepEqual(m.ref, { kind: 'EnvoyFilter', namespace: ROOT, name: 'aeraki-outbound-old' });
    assert.match(m.message, /ServiceEntry shop\/gone/);
  });

  it("is silent for what is produced, for others' filters and for the output of a rejected source", () => {
    const foreign = filter(ROOT, 'mine', [], { managed: false });
    const kept = filter(ROOT, 'aeraki-outbound-bad', [], { source: 'ServiceEntry/shop/bad' });
    const bad = { ...(serviceEntry({ name: 'bad' }) as object), spec: { hosts: [] } };
    const i = input({
      raws: [...raws, bad],
      generated,
      cluster: cluster({ envoyFilters: [...generated, foreign, kept] }),
    });
    assert.equal(i.objects.rejected.length, 1);
    assert.deepEqual(codes(orphanedAnalyzer, i), []);
  });
});

describe('AER0107 ConflictingEnvoyFilter', () => {
  const raws = [serviceEntry({})];
  const generated = generatedFor('ServiceEntry/shop/orders', 20880);
  const theirs = (operation: string, match: object) =>
    filter(
      ROOT,
      'legacy-dubbo',
      [{ applyTo: 'NETWORK_FILTER', operation, filterName: 'envoy.filters.network.tcp_proxy', ...match }],
      { managed: false },
    );

  it('reports a REPLACE of tcp_proxy on the same outbound port, naming both', () => {
    const c = cluster({
      envoyFilters: [theirs('REPLACE', { portNumber: 20880, context: 'SIDECAR_OUTBOUND' })],
    });
    const m = one(conflictingAnalyzer, input({ raws, generated, cluster: c }));
    assert.deepEqual(m.ref, { kind: 'EnvoyFilter', namespace: ROOT, name: 'legacy-dubbo' });
    assert.equal(m.path, 'spec.configPatches[0]');
    assert.match(
      m.message,
      /REPLACE .*istio-system\/aeraki-outbound-20880 \(for ServiceEntry\/shop\/orders\)/,
    );
  });

  it('reports an inbound REPLACE on the same filter chain of virtualInbound, by destinationPort or portNumber', () => {
    const inbound = [
      theirs('REPLACE', {
        listenerName: 'virtualInbound',
        destinationPort: 20880,
        context: 'SIDECAR_INBOUND',
      }),
      theirs('REPLACE', { portNumber: 20880, context: 'SIDECAR_INBOUND' }),
    ];
    const messages = inbound.map((f) =>
      one(conflictingAnalyzer, input({ raws, generated, cluster: cluster({ envoyFilters: [f] }) })),
    );
    assert.match(
      messages[0]?.message ?? '',
      /^REPLACE of envoy.filters.network.tcp_proxy on listener virtualInbound port 20880 .*istio-system\/aeraki-inbound-20880 /,
    );
    assert.match(messages[1]?.message ?? '', /on listener port 20880 .*istio-system\/aeraki-inbound-20880 /);
  });

  it("takes the files' EnvoyFilters with the cluster's, a file's definition winning; none without a cluster", () => {
    const legacy = theirs('REPLACE', { portNumber: 20880, context: 'SIDECAR_OUTBOUND' });
    const narrowed = theirs('REPLACE', { portNumber: 9090, context: 'SIDECAR_OUTBOUND' });
    const live = input({ raws, generated, cluster: cluster({ envoyFilters: [legacy] }) });
    assert.deepEqual(codes(conflictingAnalyzer, { ...live, envoyFilters: [narrowed] }), []);
    const fromFile = input({ raws, generated, cluster: cluster() });
    assert.deepEqual(codes(conflictingAnalyzer, { ...fromFile, envoyFilters: [legacy] }), ['AER0107']);
    assert.deepEqual(
      codes(conflictingAnalyzer, { ...input({ raws, generated }), envoyFilters: [legacy] }),
      [],
    );
  });

  it('is silent for filters that reach different proxies (two namespaces, neither the root one)', () => {
    const inShop = generatedFor('ServiceEntry/shop/orders', 20880).map((f) => ({ ...f, namespace: 'shop' }));
    const other = (namespace: string) => ({
      ...theirs('REPLACE', { portNumber: 20880, context: 'SIDECAR_OUTBOUND' }),
      namespace,
    });
    const hits = (namespace: string) =>
      codes(
        conflictingAnalyzer,
        input({ raws, generated: inShop, cluster: cluster({ envoyFilters: [other(namespace)] }) }),
      );
    assert.deepEqual(hits('web'), []);
    assert.deepEqual(hits('shop'), ['AER0107']);
    assert.deepEqual(hits(ROOT), ['AER0107']);
  });

  it("takes a context-less patch's context from its listener: virtualInbound is inbound, a named one is not", () => {
    const base = {
      applyTo: 'NETWORK_FILTER',
      filterName: 'envoy.filters.network.tcp_proxy',
      operation: 'REPLACE',
    };
    const contextless = [
      filter(ROOT, 'out', [{ ...base, listenerName: '240.240.0.10_20880' }], {
        source: 'ServiceEntry/shop/orders',
      }),
      filter(ROOT, 'in', [{ ...base, listenerName: 'virtualInbound', destinationPort: 20880 }], {
        source: 'ServiceEntry/shop/orders',
      }),
    ];
    const hit = (context: string) =>
      conflictingAnalyzer
        .analyze(
          input({
            raws,
            generated: contextless,
            cluster: cluster({ envoyFilters: [theirs('REPLACE', { portNumber: 20880, context })] }),
          }),
        )
        .map((m) => /EnvoyFilter istio-system\/(in|out) /.exec(m.message)?.[1]);
    assert.deepEqual(hit('SIDECAR_OUTBOUND'), ['out']);
    assert.deepEqual(hit('SIDECAR_INBOUND'), ['in']);
  });

  it('is silent for another port, an INSERT, the other context and a port-less virtualInbound', () => {
    const cases = [
      theirs('REPLACE', { portNumber: 9090 }),
      theirs('REPLACE', {
        listenerName: 'virtualInbound',
        destinationPort: 9090,
        context: 'SIDECAR_INBOUND',
      }),
      theirs('REPLACE', {
        listenerName: 'virtualInbound',
        destinationPort: 20880,
        context: 'SIDECAR_OUTBOUND',
      }),
      theirs('INSERT_BEFORE', { portNumber: 20880 }),
      theirs('REMOVE', { portNumber: 20880, context: 'SIDECAR_INBOUND', listenerName: '240.240.0.10_20880' }),
      theirs('MERGE', { listenerName: 'virtualInbound', context: 'SIDECAR_INBOUND' }),
    ];
    for (const f of cases) {
      assert.deepEqual(
        codes(conflictingAnalyzer, input({ raws, generated, cluster: cluster({ envoyFilters: [f] }) })),
        [],
        JSON.stringify(f),
      );
    }
  });
});

describe('AER0108 ClusterUnreadable', () => {
  it('reports each unreadable line as information', () => {
    const unreadable = [
      { kind: 'Pod', reason: 'forbidden' },
      { kind: 'RedisService', reason: 'not installed' },
    ];
    const out = unreadableAnalyzer.analyze(input({ cluster: cluster({ unreadable }) }));
    assert.deepEqual(
      out.map((m) => [m.code.code, m.code.severity, m.message]),
      [
        ['AER0108', 'info', 'Pod: forbidden'],
        ['AER0108', 'info', 'RedisService: not installed'],
      ],
    );
  });

  it('is silent when everything was read', () => {
    assert.deepEqual(codes(unreadableAnalyzer, input({ cluster: cluster() })), []);
  });
});
