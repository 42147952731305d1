// Our own waypoint end to end (issue 39): `aeraki serve` against the fake kube-apiserver with the Gateway API CRDs,
// dev certificates on the RDS listener. A Gateway of class aeraki-waypoint is accepted and gets its objects; the
// Dubbo, Thrift, Redis and MetaProtocol (Dubbo codec, with a MetaRouter) Services of an ambient namespace bound to it
// are served to a client that plays the waypoint proxy with the credential of the Gateway's Secret `wp-xds` (ADS,
// SotW): listener chains, clusters, endpoints and routes, every resource strict against protos-2026 (and its
// validation rules); the ACKs turn the Gateway Programmed; a MetaRouter change is one push of that service's route;
// a NACK turns it not Programmed; the same credential naming another Gateway is refused.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import {
  CLUSTER_TYPE,
  DUBBO_ROUTE_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  THRIFT_ROUTE_TYPE,
} from '../../src/model/ambient/xds.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { xdsProblems } from '../conformance/xds-check.ts';
import { AdsTestClient, sotwAck, waypointNode, type AdsSotwResponse } from '../fakes/ads-client.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
  type KubeObject,
} from '../fakes/kube-apiserver/index.ts';
import {
  b64,
  conditionOf,
  gateway,
  GATEWAY_TYPES,
  PROXY_LISTENER,
  waypointClass,
} from '../waypoint/gateway-support.ts';
import { serveOptions } from './options.ts';
import { waitFor } from './support.ts';

const BACKOFF = { initialMs: 50, maxMs: 300 };
const obj = (o: Record<string, unknown>) => o as unknown as KubeObject;

const shop = obj({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'shop', labels: { 'istio.io/dataplane-mode': 'ambient', 'istio.io/use-waypoint': 'wp' } },
});
const orders = obj({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'shop', name: 'orders' },
  spec: {
    clusterIP: '10.96.0.20',
    ports: [{ name: 'tcp-dubbo', port: 20880, targetPort: 20880, protocol: 'TCP' }],
    selector: { app: 'orders' },
  },
});
const slice = obj({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace: 'shop', name: 'orders-abc', labels: { 'kubernetes.io/service-name': 'orders' } },
  addressType: 'IPv4',
  ports: [{ name: 'tcp-dubbo', port: 20880, protocol: 'TCP' }],
  endpoints: [
    {
      addresses: ['10.1.0.7'],
      conditions: { ready: true },
      targetRef: { kind: 'Pod', namespace: 'shop', name: 'orders-1', uid: 'u1' },
    },
  ],
});
const service = (name: string, port: number, portName: string, ip: string) =>
  obj({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'shop', name },
    spec: {
      clusterIP: ip,
      ports: [{ name: portName, port, targetPort: port, protocol: 'TCP' }],
      selector: { app: name },
    },
  });
const GREETER = 'greeter.shop.svc.cluster.local';
const metaRouter = (attribute: string) =>
  obj({
    apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
    kind: 'MetaRouter',
    metadata: { namespace: 'shop', name: 'greeter' },
    spec: {
      hosts: [GREETER],
      routes: [
        {
          name: 'canary',
          match: { attributes: { [attribute]: { exact: 'true' } } },
          route: [{ destination: { host: GREETER, port: { number: 20880 } } }],
        },
      ],
    },
  });
const others = [
  service('greeter', 20880, 'tcp-metaprotocol-dubbo', '10.96.0.21'),
  service('calc', 9090, 'tcp-thrift', '10.96.0.22'),
  service('cache', 6379, 'tcp-redis', '10.96.0.23'),
  metaRouter('x-canary'),
];
const pod = obj({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: 'shop', name: 'orders-1', labels: { app: 'orders', version: 'v1' } },
  spec: {},
});

describe('aeraki serve: our own waypoint (aeraki-waypoint) end to end', () => {
  let api: FakeKubeApiServer;
  let running: RunningServe;
  const root = mkdtempSync(path.join(tmpdir(), 'own-waypoint-'));
  before(async () => {
    api = await startFakeKubeApiServer();
    for (const t of GATEWAY_TYPES) api.installCrd(t);
    api.seed([shop, orders, slice, pod, ...others, waypointClass(), gateway('wp', [PROXY_LISTENER])]);
    const o = serveOptions({
      configSource: 'kube',
      leaderElect: false,
      namespaceBootstrap: false,
      devCertsDir: path.join(root, 'certs'),
      certProvider: 'dev',
    });
    running = await startServe(o, {
      logger: silentLogger,
      kubeConfig: fakeKubeConfig(api),
      backoff: BACKOFF,
      discovery: { rediscoverMs: 100 },
    });
    await running.synced;
  });
  after(async () => {
    await running.stop();
    await api.close();
    rmSync(root, { recursive: true, force: true });
  });

  const gw = () => api.get({ group: 'gateway.networking.k8s.io', resource: 'gateways' }, 'shop', 'wp');

  it('accepts the Gateway, creates its objects owned by it, and sets its addresses', async () => {
    await waitFor(() => conditionOf(gw(), 'Accepted')?.['status'] === 'True', 'Gateway shop/wp accepted');
    const secret = await waitForObject(api, { group: '', resource: 'secrets' }, 'wp-xds');
    const refs = (secret.metadata as { ownerReferences?: Record<string, unknown>[] }).ownerReferences;
    const owner = refs?.[0];
    assert.equal(owner?.['kind'], 'Gateway');
    assert.equal(owner?.['name'], 'wp');
    for (const [group, resource] of [
      ['', 'serviceaccounts'],
      ['', 'services'],
      ['apps', 'deployments'],
    ] as const) {
      await waitForObject(api, { group, resource }, 'wp');
    }
    await waitFor(
      () => ((gw()?.['status'] as { addresses?: unknown[] } | undefined)?.addresses ?? []).length > 0,
      'status.addresses of shop/wp',
    );
  });

  it('serves the bound Dubbo Service to the waypoint proxy holding the Gateway credential, then marks it Programmed', async () => {
    const { client, stream } = await withGatewayCredential(api, running.rdsPort);
    try {
      const node = waypointNode('shop', 'wp');
      stream.send({ node, typeUrl: CLUSTER_TYPE, resourceNames: [] });
      stream.send({ node, typeUrl: LISTENER_TYPE, resourceNames: [] });
      const seen = new Map<string, AdsSotwResponse>();
      // Until both carry the service (the translation may answer empty first, before the binding settles).
      while (
        chainsOf(seen.get(LISTENER_TYPE)).length < 4 ||
        (seen.get(CLUSTER_TYPE)?.resources.length ?? 0) < 4
      ) {
        const r = await stream.next(10_000);
        seen.set(r.typeUrl, r);
        stream.send({ ...sotwAck(r), node });
      }
      const clusters = seen.get(CLUSTER_TYPE)!.resources;
      const clusterNames = clusters.map((c) => c.name);
      assert.ok(clusterNames.includes('outbound|20880||orders.shop.svc.cluster.local'), clusterNames.join());
      stream.send({ node, typeUrl: ENDPOINT_TYPE, resourceNames: clusterNames });
      stream.send({
        node,
        typeUrl: DUBBO_ROUTE_TYPE,
        resourceNames: ['orders.shop.svc.cluster.local_20880', `${GREETER}_20880`],
      });
      stream.send({ node, typeUrl: THRIFT_ROUTE_TYPE, resourceNames: ['calc.shop.svc.cluster.local_9090'] });
      const more = await stream.take(3, 10_000);
      for (const r of more)
        stream.send({
          ...sotwAck(
            r,
            r.resources.map((x) => x.name),
          ),
          node,
        });
      const cla = more.find((r) => r.typeUrl === ENDPOINT_TYPE)?.resources;
      assert.match(JSON.stringify(cla), /10\.1\.0\.7/);
      const filters = chainsOf(seen.get(LISTENER_TYPE)).map((c) => c.filters.map((f) => f.name).join(' '));
      for (const proxy of ['dubbo_proxy', 'thrift_proxy', 'redis_proxy']) {
        assert.ok(
          filters.some((f) => f.includes(`envoy.filters.network.${proxy}`)),
          `${proxy} in ${filters.join(' | ')}`,
        );
      }
      const routes = more.filter((r) => r.typeUrl === DUBBO_ROUTE_TYPE || r.typeUrl === THRIFT_ROUTE_TYPE);
      assert.deepEqual(routes.flatMap((r) => r.resources.map((x) => x.name)).sort(), [
        'calc.shop.svc.cluster.local_9090',
        `${GREETER}_20880`,
        'orders.shop.svc.cluster.local_20880',
      ]);
      assert.match(JSON.stringify(routes), /x-canary/, "the MetaRouter's match in greeter's dubbo routes");
      for (const r of [...seen.values(), ...more]) {
        for (const res of r.resources) assert.deepEqual(xdsProblems(r.typeUrl, res.json), [], res.name);
      }
      await waitFor(
        () => conditionOf(gw(), 'Programmed')?.['status'] === 'True',
        'Gateway shop/wp Programmed',
      );
      // A MetaRouter change: one push, of greeter's route only.
      api.seed(metaRouter('x-beta'));
      const push = await stream.next(10_000);
      assert.equal(push.typeUrl, DUBBO_ROUTE_TYPE);
      const changed = push.resources.filter((x) => /x-beta/.test(JSON.stringify(x.json)));
      assert.deepEqual(
        changed.map((x) => x.name),
        [`${GREETER}_20880`],
      );
      stream.send({
        ...sotwAck(
          push,
          push.resources.map((x) => x.name),
        ),
        node,
      });
      await assert.rejects(stream.next(1500), 'no other push follows');
    } finally {
      stream.close();
      client.close();
    }
  });

  it('turns Programmed False (ProxyRejected, the error detail) with a Warning Event when a proxy rejects the listener', async () => {
    const { client, stream } = await withGatewayCredential(api, running.rdsPort);
    try {
      const node = waypointNode('shop', 'wp', 'wp-2');
      stream.send({ node, typeUrl: LISTENER_TYPE, resourceNames: [] });
      const r = await stream.next(10_000);
      const detail = 'Error adding/updating listener(s) proxy_protocol_inbound: test rejection';
      stream.send({ ...sotwAck(r), node, errorDetail: { code: 3, message: detail } });
      await waitFor(() => conditionOf(gw(), 'Programmed')?.['status'] === 'False', 'Programmed False');
      const programmed = conditionOf(gw(), 'Programmed')!;
      assert.equal(programmed['reason'], 'ProxyRejected');
      assert.match(String(programmed['message']), /test rejection/);
      const events = api.list({ group: 'events.k8s.io', resource: 'events' });
      assert.ok(
        events.some((e) => e['type'] === 'Warning' && /test rejection/.test(String(e['note']))),
        'a Warning Event naming the rejection',
      );
    } finally {
      stream.close();
      client.close();
    }
  });

  it('refuses the credential of shop/wp for another Gateway', async () => {
    const { client, stream } = await withGatewayCredential(api, running.rdsPort);
    try {
      stream.send({ node: waypointNode('shop', 'other'), typeUrl: LISTENER_TYPE, resourceNames: [] });
      const status = await stream.status;
      assert.equal(status.code, grpc.status.PERMISSION_DENIED);
    } finally {
      stream.close();
      client.close();
    }
  });
});

/** A SotW ADS stream to the RDS port with the credential of the Gateway's Secret `shop/wp-xds`. */
async function withGatewayCredential(api: FakeKubeApiServer, port: number) {
  const secret = await waitForObject(api, { group: '', resource: 'secrets' }, 'wp-xds');
  const data = secret['data'] as Record<string, string>;
  const client = new AdsTestClient(port, {
    ca: b64(data['ca.crt']),
    cert: b64(data['tls.crt']),
    key: b64(data['tls.key']),
  });
  return { client, stream: client.sotw() };
}

interface ChainJson {
  readonly name: string;
  readonly filters: readonly { readonly name: string }[];
}

function chainsOf(r: AdsSotwResponse | undefined): readonly ChainJson[] {
  return (r?.resources[0]?.json as { filterChains?: ChainJson[] } | undefined)?.filterChains ?? [];
}

async function waitForObject(
  api: FakeKubeApiServer,
  ref: { group: string; resource: string },
  name: string,
): Promise<KubeObject> {
  await waitFor(() => api.get(ref, 'shop', name) !== undefined, `${ref.resource} shop/${name}`);
  return api.get(ref, 'shop', name)!;
}
