import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  startFakeKubeApiServer,
  writeKubeconfig,
  type FakeKubeApiServer,
  type KubeObject,
} from '../index.ts';
import { binary, run, start } from '../../../support/process.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const KUBECTL = binary('/usr/bin/kubectl', 'kubectl');
const PYTHON = '/usr/bin/python3';

function ef(name: string, namespace = 'ns1', spec: unknown = { a: 1 }): KubeObject {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'EnvoyFilter',
    metadata: { name, namespace },
    spec,
  };
}

for (const tls of [false, true]) {
  describe(`fake kube-apiserver: kubectl and python3-kubernetes (${tls ? 'HTTPS' : 'HTTP'})`, () => {
    let api: FakeKubeApiServer;
    let dir: string;
    let kubeconfig: string;
    const kubectl = (...args: string[]) =>
      run(KUBECTL, ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args], 30_000);

    before(async () => {
      api = await startFakeKubeApiServer({ tls });
      dir = mkdtempSync(join(tmpdir(), 'fake-kube-clients-'));
      kubeconfig = writeKubeconfig(api, dir, { token: 'kubectl' });
      api.seed([ef('seeded-a', 'ns1'), ef('seeded-b', 'ns2')]);
    });
    after(async () => {
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('kubectl get -A -o json lists every namespace', async () => {
      const r = await kubectl('get', 'envoyfilters.networking.istio.io', '-A', '-o', 'json');
      assert.equal(r.code, 0, r.stderr);
      const list = JSON.parse(r.stdout) as { items: KubeObject[] };
      assert.deepEqual(
        list.items.map((i) => `${i.metadata.namespace ?? ''}/${i.metadata.name ?? ''}`),
        ['ns1/seeded-a', 'ns2/seeded-b'],
      );
    });

    it('kubectl reads a forbidden list as RBAC refusing it', async () => {
      const denied = api.forbid({ verb: 'list', resource: 'envoyfilters' });
      try {
        const r = await kubectl('get', 'envoyfilters.networking.istio.io', '-A', '-o', 'name');
        assert.equal(r.code, 1);
        const user = tls ? 'kubectl' : 'system:anonymous';
        assert.match(
          r.stderr,
          new RegExp(
            `Error from server \\(Forbidden\\): envoyfilters\\.networking\\.istio\\.io is forbidden: User "${user}" ` +
              'cannot list resource "envoyfilters" in API group "networking.istio.io" at the cluster scope',
          ),
        );
      } finally {
        denied.remove();
      }
      const again = await kubectl('get', 'envoyfilters.networking.istio.io', '-A', '-o', 'name');
      assert.equal(again.code, 0, again.stderr);
    });

    it('kubectl apply --server-side --field-manager creates, then updates', async () => {
      const file = join(dir, 'ef.yaml');
      const yaml = (v: number): string =>
        `apiVersion: networking.istio.io/v1alpha3\nkind: EnvoyFilter\nmetadata:\n  name: applied\n  namespace: ns1\nspec:\n  v: ${v}\n`;
      writeFileSync(file, yaml(1));
      const args = ['apply', '--server-side', '--field-manager=aeraki', '--validate=false', '-f', file];
      const first = await kubectl(...args);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /envoyfilter.networking.istio.io\/applied serverside-applied/);
      writeFileSync(file, yaml(2));
      const second = await kubectl(...args);
      assert.equal(second.code, 0, second.stderr);
      const obj = api.get('envoyfilters.networking.istio.io', 'ns1', 'applied')!;
      assert.deepEqual(obj.spec, { v: 2 });
      assert.equal(obj.metadata.generation, 2);
      assert.deepEqual(
        obj.metadata.managedFields?.map((m) => `${m.manager}/${m.operation}`),
        ['aeraki/Apply'],
      );
      const patches = api.writes({ verb: 'patch', name: 'applied' });
      assert.equal(patches.length, 2);
      assert.equal(patches[0]!.fieldManager, 'aeraki');
      // kubectl sends its bearer token only over HTTPS
      assert.equal(patches[0]!.token, tls ? 'kubectl' : undefined);
    });

    it('kubectl get -w sees an event', async () => {
      const w = start(
        KUBECTL,
        [
          '--kubeconfig',
          kubeconfig,
          '--cache-dir',
          join(dir, 'cache'),
          'get',
          'envoyfilters.networking.istio.io',
          '-n',
          'ns1',
          '-w',
          '-o',
          'name',
        ],
        30_000,
      );
      try {
        await w.waitFor('envoyfilter.networking.istio.io/seeded-a', 20_000);
        await waitForWatch(api, 20_000);
        api.seed(ef('watched', 'ns1'));
        await w.waitFor('envoyfilter.networking.istio.io/watched', 20_000);
      } finally {
        w.kill();
        await w.exited;
      }
    });

    it('python3-kubernetes lists, watches from a resourceVersion and gets 410 Expired', async (t) => {
      if (!existsSync(PYTHON)) return t.skip('no /usr/bin/python3');
      const script = join(repoRoot, 'test/python/kube_list_watch.py');
      const p = start(PYTHON, [script, kubeconfig, 'ns1', 'from-python'], 60_000);
      try {
        await p.waitFor('"listed"', 30_000);
        await waitForWatch(api, 20_000);
        api.seed(ef('from-python', 'ns1'));
        const code = await p.exited;
        assert.equal(code, 0, `stdout: ${p.stdout} stderr: ${p.stderr}`);
      } finally {
        p.kill();
      }
      const lines = p.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.ok((lines[1]!.listed as string[]).includes('seeded-a'));
      assert.ok(lines.some((l) => l.event === 'ADDED' && l.name === 'from-python'));
      assert.deepEqual(lines.at(-1), { expired: 410 });
    });
  });
}

/** Waits until some client has a watch open on the server (the events that follow are then live). */
async function waitForWatch(api: FakeKubeApiServer, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (api.openWatches === 0) {
    if (Date.now() > deadline) throw new Error('no watch opened');
    await new Promise((r) => setTimeout(r, 20));
  }
}
