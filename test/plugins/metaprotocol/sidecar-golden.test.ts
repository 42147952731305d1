// Golden comparisons: the spec of every MetaProtocol sidecar filter generated for a hand-built context equal to a
// render fixture's input must deep-equal the fixture's expected spec.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MESH_CONFIG } from '../../../src/model/mesh.ts';
import type { MeshConfig, MetaRouter, ServiceEntry } from '../../../src/model/objects.ts';
import { createMetaProtocolGenerator } from '../../../src/plugins/metaprotocol/index.ts';
import { metaRouter, serviceEntry } from '../../support/builders.ts';
import {
  asJson,
  DEMO_HOST,
  demoServiceEntry,
  expectedItems,
  expectedSpec,
  sidecarContext,
  unwrap,
  type SidecarOptions,
} from './support.ts';

const gen = createMetaProtocolGenerator();
const LONG_HOST =
  'ledger-reconciliation-batch-processor-quarterly-close.payments-platform-settlement-and-clearing-subsystem-primary.' +
  'internal-services-cluster-eu-west-production-environment-blue.corporate-finance-division-accounting.example.com';

/** Generates every port of `se` and checks each draft against the fixture (by name; optional namespace). */
function checkCase(caseName: string, se: ServiceEntry, o: SidecarOptions = {}, namespace?: string): number {
  let checked = 0;
  se.spec.ports.forEach((port, i) => {
    if (!/^[^-]*-metaprotocol-/i.test(port.name)) return;
    const drafts = unwrap(gen.generateSidecar(sidecarContext(se, i, o)));
    for (const d of drafts) {
      assert.deepEqual(asJson(d.spec), expectedSpec(caseName, d.name, namespace), `${caseName}: ${d.name}`);
      checked++;
    }
  });
  return checked;
}

const mesh = (m: Partial<MeshConfig>): MeshConfig => ({ ...DEFAULT_MESH_CONFIG, ...m });

describe('metaprotocol sidecar: golden fixtures', () => {
  it('01 dubbo sidecar: outbound + inbound', () => {
    assert.equal(checkCase('01-metaprotocol-dubbo-sidecar', demoServiceEntry()), 2);
  });

  it('02 thrift, two addresses, selector annotation', () => {
    const se = serviceEntry(
      'meta-thrift',
      'thrift-hello',
      {
        hosts: ['thrift-hello.meta-thrift.svc.cluster.local'],
        addresses: ['240.240.0.9', '10.96.12.7'],
        ports: [{ number: 9090, name: 'tcp-metaprotocol-thrift-hello', protocol: 'TCP' }],
      },
      { annotations: { workloadSelector: 'thrift-hello-server' } },
    );
    assert.equal(checkCase('02-metaprotocol-thrift-two-addresses', se), 3);
  });

  it('03 no addresses: inbound only', () => {
    const se = serviceEntry(
      'shop',
      'order',
      {
        hosts: ['order.shop.svc.cluster.local'],
        ports: [{ number: 20882, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
      },
      { annotations: { workloadSelector: 'app.kubernetes.io/name : order-provider' } },
    );
    assert.equal(checkCase('03-no-addresses-inbound-only', se), 1);
  });

  it('04 exportTo: specs unchanged by MetaRouter routes', () => {
    const mr = metaRouter('metaprotocol', 'test-metaprotocol-route', {
      exportTo: ['metaprotocol', 'default'],
      hosts: [DEMO_HOST],
      routes: [
        {
          name: 'v1',
          route: [{ destination: { host: DEMO_HOST, subset: 'v1' } }],
          requestMutation: [],
          responseMutation: [],
        },
      ],
    });
    assert.equal(checkCase('04-exportto-namespaces', demoServiceEntry(), { metaRouter: mr }, 'default'), 2);
  });

  it('05 two-label workload selector', () => {
    const se = serviceEntry('payments', 'ledger', {
      hosts: ['ledger.payments.svc.cluster.local'],
      addresses: ['240.240.0.12'],
      ports: [{ number: 7001, name: 'tcp-metaprotocol-thrift', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'ledger', tier: 'backend' } },
    });
    assert.equal(checkCase('05-exportto-dot', se), 2);
  });

  it('07 custom protocol codec from an ApplicationProtocol', () => {
    const se = serviceEntry('trpc-demo', 'helloworld', {
      hosts: ['helloworld.trpc-demo.svc.cluster.local'],
      addresses: ['240.240.0.20'],
      ports: [{ number: 8000, name: 'tcp-metaprotocol-trpc-8000', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'trpc-server' } },
    });
    const o = { codecs: { trpc: 'aeraki.meta_protocol.codec.trpc' } };
    assert.equal(checkCase('07-custom-protocol-trpc', se, o), 2);
  });

  it('16 local rate limit', () => {
    const mr = metaRouter('metaprotocol', 'test-metaprotocol-route', {
      hosts: [DEMO_HOST],
      localRateLimit: {
        tokenBucket: { fillInterval: '60s', maxTokens: 5, tokensPerFill: 5 },
        conditions: [
          {
            tokenBucket: { fillInterval: '60s', maxTokens: 2, tokensPerFill: 2 },
            match: { attributes: { method: { exact: 'sayHello' } } },
          },
        ],
      },
    });
    assert.equal(checkCase('16-local-rate-limit', demoServiceEntry(), { metaRouter: mr }), 2);
  });

  it('17 global rate limit', () => {
    const mr = metaRouter('metaprotocol', 'test-metaprotocol-route', {
      hosts: [DEMO_HOST],
      globalRateLimit: {
        domain: 'production',
        match: { attributes: { method: { exact: 'sayHello' } } },
        rateLimitService: 'outbound|8081||rate-limit-server.metaprotocol.svc.cluster.local',
        requestTimeout: '0.100s',
        denyOnFail: true,
        descriptors: [{ property: 'method', descriptorKey: 'method' }],
      },
    });
    assert.equal(checkCase('17-global-rate-limit', demoServiceEntry(), { metaRouter: mr }), 2);
  });

  it('22 text access log with the mesh format, sampling 100', () => {
    const m = mesh({
      accessLogFile: '/dev/stdout',
      accessLogFormat:
        '[%START_TIME%] %REQ(X-META-PROTOCOL-APPLICATION-PROTOCOL)% %RESPONSE_CODE% %RESPONSE_CODE_DETAILS% %UPSTREAM_CLUSTER% %ROUTE_NAME%\n',
      tracingSampling: 100,
    });
    assert.equal(checkCase('22-mesh-text-access-log', demoServiceEntry(), { mesh: m }), 2);
  });

  it('23 JSON access log with the built-in map, tracing off', () => {
    const se = serviceEntry('meta-thrift', 'thrift-hello', {
      hosts: ['thrift-hello.meta-thrift.svc.cluster.local'],
      addresses: ['240.240.0.9'],
      ports: [{ number: 9090, name: 'tcp-metaprotocol-thrift', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'thrift-hello' } },
    });
    const m = mesh({
      enableTracing: false,
      accessLogFile: '/var/log/meta-access.log',
      accessLogEncoding: 'JSON',
    });
    assert.equal(checkCase('23-mesh-json-access-log', se, { mesh: m }), 2);
  });

  it('24 built-in text format, sampling 1', () => {
    const m = mesh({ accessLogFile: '/dev/stdout', tracingSampling: 1, rootNamespace: 'mesh-root' });
    assert.equal(checkCase('24-root-namespace', demoServiceEntry(), { mesh: m }, 'mesh-root'), 2);
  });

  it('26 D2: no selector, no inbound; empty labels fall back to the annotation', () => {
    const noSelector = serviceEntry('shop', 'no-selector', {
      hosts: ['no-selector.shop.svc.cluster.local'],
      addresses: ['240.240.0.61'],
      ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
    });
    assert.equal(checkCase('26-d2-selector-fallbacks', noSelector), 1);
    const emptyLabels = serviceEntry(
      'shop',
      'empty-labels',
      {
        hosts: ['empty-labels.shop.svc.cluster.local'],
        addresses: ['240.240.0.62'],
        ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
        workloadSelector: { labels: {} },
      },
      { annotations: { workloadSelector: 'version:v3' } },
    );
    assert.equal(checkCase('26-d2-selector-fallbacks', emptyLabels), 2);
  });

  it('28 D4: the MetaProtocol port is not ports[0]', () => {
    const se = serviceEntry(
      'polyglot',
      'mixed',
      {
        hosts: ['mixed.polyglot.svc.cluster.local'],
        addresses: ['240.240.0.70'],
        ports: [
          { number: 20880, name: 'tcp-dubbo', protocol: 'TCP' },
          { number: 9090, name: 'tcp-metaprotocol-thrift', protocol: 'TCP' },
        ],
        workloadSelector: { labels: { app: 'mixed' } },
      },
      { annotations: { interface: 'com.example.Mixed' } },
    );
    assert.equal(checkCase('28-d4-mixed-protocol-ports', se), 2);
  });

  it('30 D5: rate-limit matchers sorted by key, local before global', () => {
    const mr: MetaRouter = metaRouter('metaprotocol', 'limits', {
      hosts: [DEMO_HOST],
      localRateLimit: {
        conditions: [
          {
            match: { attributes: { method: { exact: 'sayHello' }, env: { exact: 'prod' } } },
            tokenBucket: { fillInterval: '1s', maxTokens: 10, tokensPerFill: 10 },
          },
        ],
      },
      globalRateLimit: {
        domain: 'production',
        match: { attributes: { user: { prefix: 'vip-' }, method: { exact: 'sayHello' } } },
        rateLimitService: 'outbound|8081||rate-limit-server.metaprotocol.svc.cluster.local',
        requestTimeout: '0.250s',
        descriptors: [{ property: 'user', descriptorKey: 'user' }],
      },
    });
    assert.equal(checkCase('30-d5-sorted-filter-matchers', demoServiceEntry(), { metaRouter: mr }), 2);
  });

  it('33 D7: hosts inside the spec are kept as written', () => {
    const inventory = serviceEntry('shop', 'inventory', {
      hosts: ['Inventory.Shop.Example'],
      addresses: ['10.20.0.0/16', '240.240.0.100'],
      ports: [{ number: 9000, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'inventory' } },
    });
    const ledger = serviceEntry('finance', 'ledger', {
      hosts: [LONG_HOST],
      addresses: ['240.240.0.101'],
      ports: [{ number: 20880, name: 'tcp-metaprotocol-thrift', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'ledger' } },
    });
    // Names are sanitised by the caller (D7), so pair drafts with expected filters by their listener match.
    const items = expectedItems('33-d7-name-sanitising');
    const matchOf = (spec: { configPatches: readonly { match?: unknown }[] }): string =>
      JSON.stringify(spec.configPatches[0]?.match);
    const drafts = [inventory, ledger].flatMap((se) => unwrap(gen.generateSidecar(sidecarContext(se, 0))));
    assert.equal(drafts.length, items.length);
    for (const d of drafts) {
      const twin = items.find((i) => matchOf(i.spec as never) === matchOf(d.spec));
      assert.ok(twin, `no expected filter for ${matchOf(d.spec)}`);
      assert.deepEqual(asJson(d.spec), twin.spec);
    }
  });

  it('34 D8: global rate limit without requestTimeout has no timeout key', () => {
    const mr = metaRouter('metaprotocol', 'test-metaprotocol-route', {
      hosts: [DEMO_HOST],
      globalRateLimit: {
        domain: 'production',
        match: { attributes: { method: { exact: 'sayHello' } } },
        rateLimitService: 'outbound|8081||rate-limit-server.metaprotocol.svc.cluster.local',
        descriptors: [{ property: 'method', descriptorKey: 'method' }],
      },
    });
    assert.equal(checkCase('34-d8-rate-limit-inputs', demoServiceEntry(), { metaRouter: mr }), 2);
  });
});
