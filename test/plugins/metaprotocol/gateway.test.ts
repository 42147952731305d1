import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateAll } from '../../../src/envoyfilter/generate-all.ts';
import { MANAGED_LABELS, SOURCE_ANNOTATION } from '../../../src/model/constants.ts';
import type { GatewayDraft } from '../../../src/model/generator.ts';
import { DEFAULT_MESH_CONFIG } from '../../../src/model/mesh.ts';
import type { Gateway, MetaRouter, OutputObject } from '../../../src/model/objects.ts';
import { formatIssue } from '../../../src/model/result.ts';
import { createMetaProtocolGenerator } from '../../../src/plugins/metaprotocol/index.ts';
import { gateway, metaRouter, serviceEntry, storeOf } from '../../support/builders.ts';
import { asJson, expectedSpec, gatewayContext, proxyConfig, sidecarContext, unwrap } from './support.ts';

const gen = createMetaProtocolGenerator();
const HOST = 'thrift-sample-server.meta-thrift.svc.cluster.local';
const CASE = '18-gateway-thrift';

function ingress(): Gateway {
  return gateway('istio-system', 'istio-ingressgateway', {
    selector: { app: 'istio-ingressgateway', istio: 'ingressgateway' },
    servers: [
      { hosts: ['*'], port: { name: 'tcp-kaili', number: 20001, protocol: 'tcp' } },
      { hosts: ['*'], port: { name: 'tcp-grafana', number: 3000, protocol: 'tcp' } },
      { hosts: ['*'], port: { name: 'tcp-metaprotocol-thrift-9090', number: 9090, protocol: 'tcp' } },
    ],
  });
}

function thriftRouter(): MetaRouter {
  return metaRouter('meta-thrift', 'test-metaprotocol-thrift-route', {
    gateways: ['istio-system/istio-ingressgateway'],
    hosts: [HOST],
    routes: [
      {
        match: { attributes: { method: { exact: '' } } },
        route: [{ destination: { host: HOST, port: { number: 9090 } } }],
        requestMutation: [],
        responseMutation: [],
      },
    ],
  });
}

function generate(gw: Gateway = ingress(), serverIndex = 2, mr: MetaRouter = thriftRouter()) {
  if (!gen.generateGateway) throw new Error('no gateway mode');
  return gen.generateGateway(gatewayContext(gw, serverIndex, mr));
}

/** The one EnvoyFilter draft among gateway drafts. */
function filterDraft(drafts: readonly GatewayDraft[]): Extract<GatewayDraft, { kind: 'EnvoyFilter' }> {
  const filters = drafts.filter((d) => d.kind === 'EnvoyFilter');
  assert.equal(filters.length, 1);
  return filters[0]!;
}

/** The complete objects generateAll writes for the ingress gateway and the thrift MetaRouter. */
function written(): OutputObject[] {
  return generateAll(storeOf([ingress(), thriftRouter()]), [gen], { namespaceScope: false }).objects;
}

describe('metaprotocol gateway', () => {
  it('18: the gateway filter matches the fixture', () => {
    const f = filterDraft(unwrap(generate()));
    assert.equal(f.name, 'aeraki-gateway-outbound-istio-ingressgateway.istio-system-9090');
    assert.equal(f.namespace, 'istio-system');
    assert.deepEqual(asJson(f.spec), expectedSpec(CASE, f.name, 'istio-system'));
  });

  it('18: generateAll writes the gateway filter with apiVersion, the managed labels and its source', () => {
    const f = written().find((o) => o.kind === 'EnvoyFilter');
    assert.ok(f);
    assert.deepEqual(asJson(f), {
      apiVersion: 'networking.istio.io/v1alpha3',
      kind: 'EnvoyFilter',
      metadata: {
        name: 'aeraki-gateway-outbound-istio-ingressgateway.istio-system-9090',
        namespace: 'istio-system',
        labels: MANAGED_LABELS,
        annotations: { [SOURCE_ANNOTATION]: 'Gateway/istio-system/istio-ingressgateway' },
      },
      spec: expectedSpec(CASE, f.metadata.name, 'istio-system'),
    });
  });

  it('18: the same MetaRouter drives the sidecar filters of the ServiceEntry', () => {
    const se = serviceEntry('meta-thrift', 'synthetic-thrift-sample-server', {
      hosts: [HOST],
      addresses: ['10.96.33.7'],
      ports: [{ number: 9090, name: 'tcp-metaprotocol-thrift-9090', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'thrift-sample-server' } },
    });
    const drafts = unwrap(gen.generateSidecar(sidecarContext(se, 0, { metaRouter: thriftRouter() })));
    assert.equal(drafts.length, 2);
    for (const d of drafts) assert.deepEqual(asJson(d.spec), expectedSpec(CASE, d.name, 'istio-system'));
  });

  it('writes the synthetic VirtualService of spec 6.4', () => {
    const vs = written().find((o) => o.kind === 'VirtualService');
    assert.ok(vs);
    assert.deepEqual(asJson(vs), {
      apiVersion: 'networking.istio.io/v1alpha3',
      kind: 'VirtualService',
      metadata: {
        name: 'aeraki-vs-istio-system.istio-ingressgateway-9090',
        namespace: 'istio-system',
        labels: { manager: 'Aeraki' },
        annotations: { [SOURCE_ANNOTATION]: 'Gateway/istio-system/istio-ingressgateway' },
      },
      spec: {
        hosts: [HOST],
        gateways: ['istio-system/istio-ingressgateway'],
        tcp: [{ match: [{ port: 9090 }], route: [{ destination: { host: HOST, port: { number: 9090 } } }] }],
      },
    });
  });

  it('uses the MetaRouter host for stats, RDS name and istio_stats, and the server port', () => {
    const gw = gateway('edge', 'gw', {
      selector: { app: 'edge' },
      servers: [{ hosts: ['*'], port: { name: 'tcp-metaprotocol-dubbo', number: 19090 } }],
    });
    const mr = metaRouter('apps', 'mr', {
      hosts: ['svc.apps.svc.cluster.local', 'other'],
      gateways: ['edge/gw'],
    });
    const f = filterDraft(unwrap(generate(gw, 0, mr)));
    assert.equal(f.name, 'aeraki-gateway-outbound-gw.edge-19090');
    assert.deepEqual(f.spec.workloadSelector, { labels: { app: 'edge' } });
    const patch = f.spec.configPatches[0]!;
    assert.deepEqual(patch.match, {
      listener: {
        name: '0.0.0.0_19090',
        filterChain: { filter: { name: 'envoy.filters.network.tcp_proxy' } },
      },
    });
    const cfg = proxyConfig(f);
    assert.equal(cfg['statPrefix'], 'outbound|19090||svc.apps.svc.cluster.local');
    assert.equal(
      (cfg['rds'] as { routeConfigName: string }).routeConfigName,
      'svc.apps.svc.cluster.local_19090',
    );
    assert.equal(cfg['applicationProtocol'], 'dubbo');
    assert.deepEqual(cfg['codec'], { name: 'aeraki.meta_protocol.codec.dubbo' });
    const stats = (cfg['metaProtocolFilters'] as { config?: { destinationService?: string } }[])[1];
    assert.equal(stats?.config?.destinationService, 'svc.apps.svc.cluster.local');
  });

  it('applies the mesh access log and tracing to the gateway proxy', () => {
    const mesh = { ...DEFAULT_MESH_CONFIG, accessLogFile: '/dev/stdout', enableTracing: false };
    const f = filterDraft(unwrap(gen.generateGateway!(gatewayContext(ingress(), 2, thriftRouter(), mesh))));
    const cfg = proxyConfig(f);
    assert.equal((cfg['accessLog'] as unknown[]).length, 1);
    assert.equal(cfg['tracing'], undefined);
  });

  it('D1 on a gateway server port name is an issue on the Gateway, with the field path', () => {
    const gw = gateway('istio-system', 'gw', {
      servers: [
        { hosts: ['*'], port: { name: 'tcp-grafana', number: 3000 } },
        { hosts: ['*'], port: { name: 'tcp-metaprotocol', number: 9090 } },
      ],
    });
    const r = generate(gw, 1);
    assert.equal(r.ok, false);
    assert.equal(r.issues.length, 1);
    assert.match(formatIssue(r.issues[0]!), /^Gateway istio-system\/gw: spec\.servers\[1\]\.port\.name: /);
  });

  it('an unknown codec on a gateway server is an issue on the Gateway', () => {
    const gw = gateway('istio-system', 'gw', {
      servers: [{ hosts: ['*'], port: { name: 'tcp-metaprotocol-nosuch', number: 9090 } }],
    });
    const r = generate(gw, 0);
    assert.equal(r.ok, false);
    assert.deepEqual(
      r.issues.map((i) => [i.ref.kind, i.path]),
      [['Gateway', 'spec.servers[0].port.name']],
    );
    assert.match(r.issues[0]!.message, /nosuch/);
  });

  it('a MetaRouter without hosts is an issue on the MetaRouter', () => {
    const mr = metaRouter('meta-thrift', 'empty', { gateways: ['istio-system/istio-ingressgateway'] });
    const r = generate(ingress(), 2, mr);
    assert.equal(r.ok, false);
    assert.equal(formatIssue(r.issues[0]!), 'MetaRouter meta-thrift/empty: spec.hosts: no hosts');
  });

  it('is deterministic', () => {
    assert.equal(JSON.stringify(generate()), JSON.stringify(generate()));
  });
});
