// A generation error of an object the store accepted (not a rejection) gets Accepted False and a Warning Event,
// created once per distinct message: a Secret shared by two RedisServices where only one loses its key, against
// the fake kube-apiserver over real HTTP, on the manual clock.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aerakiResources } from '../../src/controller/kube/resources.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { applyWrites } from '../../src/kit/apply.ts';
import type { ConfigIssue } from '../../src/model/result.ts';
import type { ConfigObject } from '../../src/model/objects.ts';
import { parseRawObjects } from '../../src/model/parse/objects.ts';
import { createGenerators, createPluginKinds } from '../../src/plugins/registry.ts';
import { StatusController } from '../../src/status/controller.ts';
import { createKubeStatusPort } from '../../src/status/kube.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';

const ROOT = 'istio-system';
const KINDS = createPluginKinds();
const RS = 'redisservices.redis.aeraki.io';
const EV = { group: 'events.k8s.io', resource: 'events' };
const QUIET = 500;

const host = (name: string) => `${name}.cache.svc.cluster.local`;

function redisService(name: string, passwordField: string) {
  return {
    apiVersion: 'redis.aeraki.io/v1alpha1',
    kind: 'RedisService',
    metadata: { namespace: 'cache', name, creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { host: [host(name)], settings: { auth: { secret: { name: 'shared', passwordField } } } },
  };
}

function entry(name: string, address: string) {
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'ServiceEntry',
    metadata: { namespace: 'cache', name, creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: {
      hosts: [host(name)],
      addresses: [address],
      ports: [{ number: 6379, name: 'tcp-redis', protocol: 'TCP' }],
      resolution: 'STATIC',
    },
  };
}

/** The Secret both name, with the keys given (plain values, as stringData). */
function secret(stringData: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'cache', name: 'shared' }, stringData };
}

let api: FakeKubeApiServer;
before(async () => {
  api = await startFakeKubeApiServer();
});
after(async () => {
  await api.close();
});

describe('status: a generation error of an accepted object', () => {
  it('Accepted False and one Warning Event per distinct message, on that object only', async () => {
    const services = [redisService('a', 'pa'), redisService('b', 'pb')];
    for (const s of services) api.seed(s);
    const store = new ConfigStore({ rootNamespace: ROOT, kinds: KINDS });
    const put = (raws: unknown[]) => {
      const parsed = parseRawObjects(raws, ROOT, [], { clusterDomain: 'cluster.local', kinds: KINDS });
      for (const o of parsed.objects as ConfigObject[]) store.upsert(o);
    };
    put([entry('a', '10.96.48.1'), entry('b', '10.96.48.2'), ...services, secret({ pa: '1', pb: '2' })]);
    let issues: readonly ConfigIssue[] = [];
    const generate = () => {
      issues = generateAll(store, createGenerators(), { namespaceScope: false }).issues;
    };
    generate();
    assert.deepEqual(issues, [], 'both served');

    const clock = new ManualClock(Date.parse('2026-02-03T04:05:06Z'));
    const c = new StatusController({
      port: createKubeStatusPort(fakeKubeConfig(api), {
        resources: aerakiResources(KINDS),
        apiVersionOf: () => 'networking.istio.io/v1alpha3',
        instance: 'aeraki-0',
      }),
      apply: applyWrites,
      inputs: () => ({ view: store, rejected: [], issues }),
      logger: silentLogger,
      quietMs: QUIET,
      maxWaitMs: 2000,
      resyncMs: 0,
      clock,
    });
    const run = async () => {
      c.trigger();
      clock.advance(QUIET);
      await c.idle();
    };
    const accepted = (name: string) =>
      ((api.get(RS, 'cache', name) as any).status?.conditions ?? []).find((x: any) => x.type === 'Accepted');
    const events = () => api.list(EV) as any[];
    try {
      await run();
      assert.equal(events().length, 0);

      // The Secret loses a's key only: b stays served; a's generation fails (its output written before stays).
      put([secret({ pb: '3' })]);
      generate();
      const note = 'spec.settings.auth.secret.passwordField: Secret cache/shared has no key "pa"';
      await run();
      assert.equal(accepted('a').status, 'False');
      assert.equal(accepted('a').message, note);
      assert.equal(accepted('b').status, 'True');
      assert.deepEqual(
        events().map((e) => [e.type, e.reason, e.regarding.kind, e.regarding.name, e.note]),
        [['Warning', 'Invalid', 'RedisService', 'a', note]],
      );

      for (let i = 0; i < 3; i++) {
        generate();
        await run();
      }
      assert.equal(events().length, 1, 'not re-created on every run');

      put([secret({ pa: '', pb: '3' })]);
      generate();
      await run();
      assert.deepEqual(
        events()
          .map((e) => e.note)
          .sort(),
        [note, 'spec.settings.auth.secret.passwordField: Secret cache/shared key "pa" is empty'].sort(),
        'a new message: a new Event',
      );
    } finally {
      await c.stop();
    }
  });
});
