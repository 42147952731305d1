// `aeraki serve --config-source dir --output dir`: a RedisService naming a Secret is rejected, as with the
// Kubernetes source, while the files do not hold the Secret or it cannot serve (no key): never a filter without the
// auth it asks for. With no valid version, its host is held (nothing written); with one, the filter with the auth it
// was read with stays, and /debug/config names the Secret and the key.
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { silentLogger } from '../../src/util/logger.ts';
import type { Raw } from '../support/lkg-objects.ts';
import { dirServeOptions } from './options.ts';
import { httpGet, waitFor } from './support.ts';

const root = mkdtempSync(path.join(tmpdir(), 'aeraki-redis-dir-e2e-'));
after(() => rmSync(root, { recursive: true, force: true }));

const HOST = 'session-cache.cache.svc.cluster.local';
const PASSWORD = 's3cret-from-the-secret';

const ENTRY: Raw = {
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { namespace: 'cache', name: 'session-cache', creationTimestamp: '2024-01-01T00:00:00Z' },
  spec: {
    hosts: [HOST],
    addresses: ['10.96.48.2'],
    ports: [{ number: 6379, name: 'tcp-redis', protocol: 'TCP' }],
    resolution: 'STATIC',
  },
};

const SERVICE: Raw = {
  apiVersion: 'redis.aeraki.io/v1alpha1',
  kind: 'RedisService',
  metadata: { namespace: 'cache', name: 'session-cache', creationTimestamp: '2024-01-01T00:00:00Z' },
  spec: { host: [HOST], settings: { auth: { secret: { name: 'session-redis' } } } },
};

function secret(data: Record<string, string>): Raw {
  const encoded = Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  );
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: 'cache', name: 'session-redis' },
    data: encoded,
  };
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

/** The rejection issues /debug/config lists for cache/session-cache, as `<path>: <message>`. */
async function rejection(running: RunningServe): Promise<string[]> {
  const doc = JSON.parse((await httpGet(`http://${running.debugAddress}/debug/config`)).body) as {
    rejected: { ref: { kind: string; namespace: string; name: string }; issues: unknown[] }[];
  };
  const r = doc.rejected.find((x) => x.ref.kind === 'RedisService' && x.ref.name === 'session-cache');
  return (r?.issues ?? []).map((i) => JSON.stringify(i));
}

describe('aeraki serve (dir): Redis auth from a Secret the files do not hold or that cannot serve', () => {
  it('no filter without auth; the Secret added gives auth; its key removed keeps the last good filter', async () => {
    const dir = path.join(root, 'scenario');
    const configDir = path.join(dir, 'config');
    const outputDir = path.join(dir, 'out');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(
      path.join(configDir, 'redis.yaml'),
      [ENTRY, SERVICE].map((r) => stringify(r)).join('---\n'),
    );
    const secretFile = path.join(configDir, 'secret.yaml');
    const running = await startServe(dirServeOptions(configDir, outputDir), { logger: silentLogger });
    /** The output files naming the Redis host, joined, after a reconcile. */
    const filters = async () => {
      await running.reconciler.runNow();
      return filesUnder(outputDir)
        .map((f) => readFileSync(f, 'utf8'))
        .filter((text) => text.includes(HOST) && text.includes('redis_proxy'))
        .join('\n---\n');
    };
    try {
      await running.synced;
      assert.equal(await filters(), '', 'no filter without the auth the RedisService asks for');
      const missing = await rejection(running);
      assert.ok(
        missing.some(
          (i) =>
            i.includes('spec.settings.auth.secret.name') &&
            i.includes('Secret cache/session-redis not found'),
        ),
        `the error names the field and the Secret: ${missing.join(', ')}`,
      );

      writeFileSync(secretFile, stringify(secret({ password: PASSWORD })));
      await waitFor(async () => (await filters()).includes(PASSWORD), 'the filter with auth');
      assert.deepEqual(await rejection(running), [], 'accepted');

      writeFileSync(secretFile, stringify(secret({ other: 'x' })));
      await waitFor(async () => (await rejection(running)).length > 0, 'the RedisService rejected');
      const noKey = await rejection(running);
      assert.ok(
        noKey.some((i) => i.includes('Secret cache/session-redis has no key \\"password\\"')),
        `the error names the Secret and the key: ${noKey.join(', ')}`,
      );
      assert.match(await filters(), new RegExp(PASSWORD), 'the last good filter, with auth, stays');

      rmSync(secretFile);
      await waitFor(
        async () => (await rejection(running)).some((i) => i.includes('not found')),
        'the Secret missing',
      );
      assert.match(await filters(), new RegExp(PASSWORD), 'the last good filter, with auth, still stays');
    } finally {
      await running.stop();
    }
  });
});
