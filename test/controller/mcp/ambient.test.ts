// Gateway API Gateways and GatewayClasses over MCP, against the fake istiod: subscribed to only when asked, each
// resource an istio.mcp.v1alpha1.Resource whose body is the spec as a google.protobuf.Struct (istiod's
// config.PilotConfigToResource; no status), read into the store's AmbientView; a bad one is NACKed or rejected
// without touching the others.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { AMBIENT_TYPE_URLS, STRUCT_TYPE_URL, structProto } from '../../../src/controller/mcp/ambient.ts';
import { McpClient } from '../../../src/controller/mcp/client.ts';
import { loadMcpProtos } from '../../../src/controller/mcp/protos.ts';
import { ConfigStore } from '../../../src/controller/store.ts';
import type { ConfigEvent } from '../../../src/model/view.ts';
import { encodeMcpResource, type AnyBytes } from '../../../src/registry/mcp/resource.ts';
import { ManualClock } from '../../../src/util/clock.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { TEST_NODE, waitForStatus } from '../../fakes/istiod/harness.ts';
import { FakeIstiod } from '../../fakes/istiod/server.ts';

const GATEWAY_URL = 'gateway.networking.k8s.io/v1/Gateway';
const CLASS_URL = 'gateway.networking.k8s.io/v1/GatewayClass';

/** A JSON value as a google.protobuf.Value (proto3 JSON of Struct is the plain object; protobufjs wants Values). */
function value(v: unknown): Record<string, unknown> {
  if (v === null) return { nullValue: 0 };
  if (Array.isArray(v)) return { listValue: { values: v.map(value) } };
  if (typeof v === 'object') return { structValue: struct(v as Record<string, unknown>) };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  return { stringValue: v };
}
function struct(o: Record<string, unknown>): Record<string, unknown> {
  return { fields: Object.fromEntries(Object.entries(o).map(([k, v]) => [k, value(v)])) };
}
function structBody(spec: Record<string, unknown>): AnyBytes {
  const t = structProto();
  return { type_url: STRUCT_TYPE_URL, value: t.encode(t.fromObject(struct(spec))).finish() };
}

const protos = loadMcpProtos();
const resource = (namespace: string, name: string, spec: Record<string, unknown>, labels = {}) =>
  encodeMcpResource(protos, { namespace, name, version: '1', labels }, structBody(spec));
const waypointSpec = {
  gatewayClassName: 'istio-waypoint',
  listeners: [
    { name: 'mesh', port: 15008, protocol: 'HBONE', allowedRoutes: { namespaces: { from: 'All' } } },
  ],
};

describe('MCP client: ambient inputs', () => {
  const open: { stop(): Promise<void> }[] = [];
  after(async () => {
    for (const o of open.splice(0)) await o.stop();
  });

  async function start(ambient: boolean) {
    const fake = await FakeIstiod.start({ serve: 'v1' });
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const events: string[] = [];
    store.subscribe((e: ConfigEvent) => events.push(`${e.type} ${e.kind} ${e.namespace}/${e.name}`));
    const client = new McpClient(
      { address: fake.address, tls: false, apiVersion: 'v1', revision: '', node: TEST_NODE },
      { store, logger: silentLogger, clock: new ManualClock(0), ...(ambient ? { ambient: store } : {}) },
    );
    open.push(client, { stop: () => fake.close() });
    return { fake, store, events, client };
  }

  it('the type URLs are istiod gvk.KubernetesGateway and gvk.GatewayClass (GroupVersionKind.String)', () => {
    assert.deepEqual(
      AMBIENT_TYPE_URLS.map((t) => t.url),
      [GATEWAY_URL, CLASS_URL],
    );
  });

  it('subscribes to the Gateway API kinds when asked and reads them (no status: addressed)', async () => {
    const { fake, store, events, client } = await start(true);
    fake.setRaw('gateway.networking.k8s.io/Gateway', [
      resource('shop', 'waypoint', waypointSpec, { 'istio.io/waypoint-for': 'all' }),
    ]);
    fake.setRaw('gateway.networking.k8s.io/GatewayClass', [resource('', 'istio-waypoint', {})]);
    client.start();
    await client.whenSynced();
    assert.deepEqual(
      fake.filter('init').map((r) => r.typeUrl),
      ['ServiceEntry', 'VirtualService', 'DestinationRule', 'Gateway']
        .map((k) => `networking.istio.io/v1/${k}`)
        .concat([GATEWAY_URL, CLASS_URL]),
    );
    assert.deepEqual(store.waypoints().gateway('shop', 'waypoint'), {
      namespace: 'shop',
      name: 'waypoint',
      className: 'istio-waypoint',
      waypointFor: 'all',
      addressed: true,
      listeners: [{ port: 15008, protocol: 'HBONE', allowedNamespaces: { from: 'All' } }],
    });
    assert.ok(store.waypoints().gatewayClass('istio-waypoint'));
    assert.deepEqual(events.sort(), [
      'added GatewayClass /istio-waypoint',
      'added KubernetesGateway shop/waypoint',
    ]);

    // An invalid Gateway keeps its last valid version; an undecodable body is NACKed; the others are read.
    const nacks = client.status().nacksSent;
    fake.setRaw('gateway.networking.k8s.io/Gateway', [
      resource('shop', 'waypoint', { ...waypointSpec, gatewayClassName: 5 }),
      resource('shop', 'other', waypointSpec),
      encodeMcpResource(
        protos,
        { namespace: 'shop', name: 'garbage' },
        { type_url: STRUCT_TYPE_URL, value: Uint8Array.from([0x0a, 0xff]) },
      ),
    ]);
    fake.push();
    await waitForStatus(client, (s) => s.nacksSent > nacks, 'the NACK of the undecodable body');
    assert.equal(store.waypoints().gateway('shop', 'waypoint')?.className, 'istio-waypoint');
    assert.ok(store.waypoints().gateway('shop', 'other'));

    fake.setRaw('gateway.networking.k8s.io/Gateway', []);
    fake.push();
    await fake.waitFor(
      () => store.waypoints().gateway('shop', 'other') === undefined,
      'the Gateways removed',
    );
    assert.equal(store.waypoints().gateway('shop', 'waypoint'), undefined);
    assert.equal(store.ambientNamespace('shop'), undefined, 'MCP serves no Namespaces');
  });

  it('without the option: no Gateway API type URL is requested', async () => {
    const { fake, store, client } = await start(false);
    fake.setRaw('gateway.networking.k8s.io/Gateway', [resource('shop', 'waypoint', waypointSpec)]);
    client.start();
    await client.whenSynced();
    assert.ok(fake.filter('init').every((r) => r.typeUrl.startsWith('networking.istio.io/')));
    assert.equal(store.waypoints().gateway('shop', 'waypoint'), undefined);
  });
});
