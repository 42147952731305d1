// Redis auth never fails open, and no credential shows in /debug/*, end to end in process (`startServe` against the
// fake kube-apiserver, --config-source kube, debug endpoints on). A Secret without the password key, or whose value
// is not base64, is an error of the RedisService or RedisDestination naming it: the object's status says
// `Accepted: False` naming the Secret and the key, a Warning Event says so, the EnvoyFilter written before stays
// (its password is still the last good one), and with nothing written before no filter is written at all (never a
// filter without the auth asked for); once the Secret has the key, the filter comes. The plain credentials of a
// RedisService and a RedisDestination (`auth.plain`, fields the Redis plugin declares secret) reach the filters
// but no /debug/* body.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { DEBUG_ENDPOINTS } from '../../src/ops/admin-server.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
  type KubeObject,
} from '../fakes/kube-apiserver/index.ts';
import { serveOptions } from '../e2e/options.ts';
import { httpGet, waitFor } from '../e2e/support.ts';

const NS = 'shop';
const EF = 'envoyfilters.networking.istio.io';
const RS = 'redisservices.redis.aeraki.io';
const RD = 'redisdestinations.redis.aeraki.io';
const EV = { group: 'events.k8s.io', resource: 'events' };
const ORDERS_PW = 'orders-Pa55-good';
const SESSIONS_PW = 'sessions-Pa55-good';
const CARTS_PW = 'carts-Pa55-late';
const PLAIN = ['plain-dest-Pa55', 'plain-dest-user', 'plain-svc-Pa55', 'plain-svc-user'] as const;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const host = (name: string) => `${name}.${NS}.svc.cluster.local`;

function secret(name: string, data: Record<string, string>, encode = true): KubeObject {
  const values = encode ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) : data;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NS },
    type: 'Opaque',
    data: values,
  };
}

function serviceEntry(name: string, address: string): KubeObject {
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'ServiceEntry',
    metadata: { namespace: NS, name },
    spec: {
      hosts: [host(name)],
      addresses: [address],
      ports: [{ number: 6379, name: 'tcp-redis', protocol: 'TCP' }],
      resolution: 'STATIC',
    },
  };
}

function destination(name: string, auth: unknown): KubeObject {
  return {
    apiVersion: 'redis.aeraki.io/v1alpha1',
    kind: 'RedisDestination',
    metadata: { namespace: NS, name },
    spec: { host: host(name), trafficPolicy: { connectionPool: { redis: { auth } } } },
  };
}

function service(name: string, auth: unknown): KubeObject {
  return {
    apiVersion: 'redis.aeraki.io/v1alpha1',
    kind: 'RedisService',
    metadata: { namespace: NS, name },
    spec: { host: [host(name)], settings: { auth } },
  };
}

interface Condition {
  type: string;
  status: string;
  message: string;
}

describe('Redis auth from a Secret that cannot serve it (fake kube-apiserver, serve)', () => {
  let api: FakeKubeApiServer;
  let running: RunningServe;
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-redis-auth-'));
  const filterOf = (name: string) =>
    JSON.stringify(api.list(EF).filter((f) => JSON.stringify(f).includes(host(name))));
  const debug = (p: string) => httpGet(`http://${running.debugAddress}/debug/${p}`);
  const accepted = (resource: string, name: string): Condition | undefined => {
    const status = api.get(resource, NS, name)?.['status'] as { conditions?: Condition[] } | undefined;
    return status?.conditions?.find((c) => c.type === 'Accepted');
  };
  const events = (name: string) =>
    (api.list(EV) as unknown as { reason: string; type: string; note: string; regarding: { name: string } }[])
      .filter((e) => e.regarding.name === name && e.type === 'Warning' && e.reason === 'Invalid')
      .map((e) => e.note);

  /** The object is rejected: Accepted False naming the Secret and the key, and a Warning Event saying it. */
  async function rejected(resource: string, name: string, message: string): Promise<void> {
    await waitFor(() => accepted(resource, name)?.status === 'False', `${name}: Accepted False`);
    assert.ok(accepted(resource, name)?.message.includes(message), accepted(resource, name)?.message);
    await waitFor(() => events(name).some((n) => n.includes(message)), `${name}: an Invalid Event`);
  }

  before(async () => {
    api = await startFakeKubeApiServer();
    api.seed([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      secret('orders-auth', { password: ORDERS_PW }),
      secret('sessions-auth', { password: SESSIONS_PW }),
      secret('carts-auth', { username: 'carts-user' }),
      serviceEntry('orders', '10.96.50.1'),
      serviceEntry('sessions', '10.96.50.2'),
      serviceEntry('carts', '10.96.50.3'),
      serviceEntry('plain', '10.96.50.4'),
      service('orders', { secret: { name: 'orders-auth' } }),
      destination('sessions', { secret: { name: 'sessions-auth' } }),
      destination('carts', { secret: { name: 'carts-auth' } }),
      destination('plain', { plain: { password: PLAIN[0], username: PLAIN[1] } }),
      service('plain', { plain: { password: PLAIN[2], username: PLAIN[3] } }),
    ]);
    running = await startServe(
      serveOptions({
        configSource: 'kube',
        devCertsDir: dir,
        debugEndpoints: true,
        secretRefreshMs: 100,
        namespaceBootstrap: false,
      }),
      { kubeConfig: fakeKubeConfig(api, { token: 'aeraki' }), backoff: { initialMs: 50, maxMs: 200 } },
    );
  });

  after(async () => {
    await running.stop();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a RedisDestination whose Secret never had the key: rejected, and no filter without auth is written', async () => {
    await waitFor(() => filterOf('orders').includes(ORDERS_PW), 'the orders filter');
    await waitFor(() => filterOf('sessions').includes(SESSIONS_PW), 'the sessions filter');
    await rejected(RD, 'carts', 'Secret shop/carts-auth has no key "password"');
    await running.reconciler.runNow();
    assert.equal(filterOf('carts'), '[]', 'no filter for carts: it would have no auth');
  });

  it('a Secret that loses the key, or whose value is not base64: rejected, the last good filter stays', async () => {
    api.seed(secret('orders-auth', { username: 'orders-user' }));
    api.seed(secret('sessions-auth', { password: '%%not*base64%%' }, false));
    await rejected(RS, 'orders', 'spec.settings.auth.secret: Secret shop/orders-auth has no key "password"');
    await rejected(RD, 'sessions', 'Secret shop/sessions-auth key "password" is not valid base64');
    await running.reconciler.runNow();
    assert.ok(filterOf('orders').includes(ORDERS_PW), 'the last good orders filter stays');
    assert.ok(filterOf('sessions').includes(SESSIONS_PW), 'the last good sessions filter stays');
  });

  it('once the Secret has the key, the filter comes with it', async () => {
    api.seed(secret('carts-auth', { password: CARTS_PW }));
    await waitFor(() => accepted(RD, 'carts')?.status === 'True', 'carts accepted');
    await waitFor(() => filterOf('carts').includes(CARTS_PW), 'the carts filter with its password');
  });

  it('no /debug/* body holds a credential, plain or from a Secret', async () => {
    await waitFor(
      () => PLAIN.every((v) => filterOf('plain').includes(v)),
      'the plain credentials in the filter',
    );
    const bodies = await Promise.all(DEBUG_ENDPOINTS.map(async (p) => [p, (await debug(p)).body] as const));
    assert.ok(
      bodies.some(([p, b]) => p === 'config' && b.includes(host('plain'))),
      'the objects are shown',
    );
    for (const value of [...PLAIN, ORDERS_PW, SESSIONS_PW, CARTS_PW]) {
      for (const form of [value, b64(value)]) {
        const leaks = bodies.filter(([, b]) => b.includes(form)).map(([p]) => p);
        assert.deepEqual(leaks, [], `${form} shown`);
      }
    }
  });
});
