// Secrets by name, end to end in process (`startServe` against the fake kube-apiserver, --config-source kube, debug
// endpoints on, a recording logger at debug level): Secrets made the way `kubectl apply` makes them (the
// last-applied annotation holds the whole Secret, values included), one named by a RedisService and one named by
// nothing. The named value reaches the Redis filter; the other Secret is never requested, and no Secret is listed or
// watched; a rotated value reaches the filter after the refresh interval; a deleted Secret is an error of the
// RedisService whose last good output stays. No `/debug/*` body, log line or `/metrics` holds any value, plain or
// base64.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
  type KubeObject,
} from '../fakes/kube-apiserver/index.ts';
import { serveOptions } from '../e2e/options.ts';
import { httpGet, waitFor } from '../e2e/support.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const NS = 'cache';
const EF = 'envoyfilters.networking.istio.io';
const REFERENCED = 'named-Pa55word-1';
const ROTATED = 'named-Pa55word-2';
const USERNAME = 'named-user-x';
const UNREFERENCED = 'unnamed-Pa55word-9';
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** A Secret as `kubectl apply` stores it: the annotation holds the applied object, values included. */
function appliedSecret(name: string, data: Record<string, string>): KubeObject {
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)]));
  const applied = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NS },
    type: 'Opaque',
    data: encoded,
  };
  return {
    ...applied,
    metadata: {
      name,
      namespace: NS,
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(applied) + '\n' },
    },
  };
}

describe('Secrets by name (fake kube-apiserver, serve with debug endpoints)', () => {
  let api: FakeKubeApiServer;
  let running: RunningServe;
  const log = recordingLogger();
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-secrets-'));
  const filtersText = () => JSON.stringify(api.list(EF));
  const debug = (p: string) => httpGet(`http://${running.debugAddress}/debug/${p}`);

  before(async () => {
    api = await startFakeKubeApiServer();
    api.seed([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      appliedSecret('redis-auth', { password: REFERENCED, username: USERNAME, unused: 'not-a-filter-key' }),
      appliedSecret('other', { password: UNREFERENCED }),
      {
        apiVersion: 'networking.istio.io/v1',
        kind: 'ServiceEntry',
        metadata: { namespace: NS, name: 'orders-cache' },
        spec: {
          hosts: ['orders-cache.cache.svc.cluster.local'],
          addresses: ['10.96.45.1'],
          ports: [{ number: 6379, name: 'tcp-redis', protocol: 'TCP' }],
          resolution: 'STATIC',
        },
      },
      {
        apiVersion: 'redis.aeraki.io/v1alpha1',
        kind: 'RedisService',
        metadata: { namespace: NS, name: 'orders-cache' },
        spec: {
          host: ['orders-cache.cache.svc.cluster.local'],
          settings: { auth: { secret: { name: 'redis-auth' } } },
        },
      },
    ]);
    running = await startServe(
      serveOptions({
        configSource: 'kube',
        devCertsDir: dir,
        debugEndpoints: true,
        logLevel: 'debug',
        secretRefreshMs: 150,
        namespaceBootstrap: false,
      }),
      {
        logger: log,
        kubeConfig: fakeKubeConfig(api, { token: 'aeraki' }),
        backoff: { initialMs: 50, maxMs: 200 },
      },
    );
  });

  after(async () => {
    await running.stop();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads only the named Secret, by name; rotation, deletion and nothing shown anywhere', async () => {
    // 1. The named value reaches the Redis filter written to the API server.
    await waitFor(
      () => filtersText().includes(REFERENCED) && filtersText().includes(USERNAME),
      'the password in the filter',
    );

    // 2. A rotated value reaches the filter after the refresh interval.
    api.seed(appliedSecret('redis-auth', { password: ROTATED, username: USERNAME }));
    await waitFor(() => filtersText().includes(ROTATED), 'the rotated password in the filter');

    // 3. A deleted Secret is an error of the RedisService; its last good output stays.
    api.delete('secrets', NS, 'redis-auth');
    const issue =
      'RedisService cache/orders-cache: spec.settings.auth.secret.name: Secret cache/redis-auth not found';
    await waitFor(
      async () => (await debug('config')).body.includes(issue),
      'the missing Secret named in the rejections',
    );
    await running.reconciler.runNow();
    assert.ok(filtersText().includes(ROTATED), 'the last good filter stays');

    // 4. Secrets: a GET by name of the named one only; never a list or watch, never the other.
    // The waypoint CA (src/waypoint/ca.ts) is the one other Secret read: listed and watched by name in the
    // controller's namespace.
    const caRead = (q: { namespace?: string; query: Record<string, string> }) =>
      q.namespace === 'istio-system' && q.query['fieldSelector'] === 'metadata.name=aeraki-waypoint-ca';
    const calls = api.requests.filter((q) => q.resource === 'secrets' && !caRead(q));
    assert.ok(
      api.requests.some((q) => q.resource === 'secrets' && caRead(q)),
      'the waypoint CA read by name',
    );
    assert.ok(calls.length >= 2);
    for (const q of calls) assert.deepEqual([q.verb, q.namespace, q.name], ['get', NS, 'redis-auth']);

    // 5. No value, plain or base64, in any /debug/* body, /metrics or log line.
    const bodies = [
      ...(await Promise.all(['config', 'envoyfilters', 'routes'].map(async (p) => (await debug(p)).body))),
      (await httpGet(`http://${running.adminAddress}/metrics`)).body,
      ...log.records.map((r) => `${r.message} ${JSON.stringify(r.fields)}`),
    ];
    assert.ok(
      log.records.some((r) => r.level === 'debug'),
      'the logger records debug lines',
    );
    for (const value of [REFERENCED, ROTATED, USERNAME, UNREFERENCED, 'not-a-filter-key']) {
      for (const form of [value, b64(value)]) {
        const leaks = bodies.filter((b) => b.includes(form));
        assert.deepEqual(leaks, [], `${form} shown`);
      }
    }
  });
});
