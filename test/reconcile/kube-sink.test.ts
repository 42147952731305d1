// Kubernetes sink details the fake kube-apiserver does not exercise: paged lists (limit/continue) and error mapping.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { specHash } from '../../src/kit/owned-content.ts';
import { createKubeSink } from '../../src/reconcile/kube-sink.ts';

const item = (name: string) => ({
  apiVersion: 'networking.istio.io/v1alpha3',
  kind: 'EnvoyFilter',
  metadata: { name, namespace: 'istio-system', resourceVersion: '5', labels: { manager: 'Aeraki' } },
  spec: { configPatches: [] },
});

describe('kube sink', () => {
  let server: Server;
  let url = '';
  const seen: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      seen.push(`${u.pathname}?${u.searchParams.toString()}`);
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST') {
        res.statusCode = 409;
        res.end(JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'AlreadyExists', code: 409 }));
        return;
      }
      if (u.pathname.endsWith('/virtualservices')) {
        res.end(JSON.stringify({ kind: 'List', metadata: { resourceVersion: '9' }, items: [] }));
        return;
      }
      const page = u.searchParams.get('continue') === 'p2' ? 2 : 1;
      res.end(
        JSON.stringify({
          kind: 'List',
          metadata: { resourceVersion: '9', ...(page === 1 ? { continue: 'p2' } : {}) },
          items: page === 1 ? [item('a'), item('b')] : [item('c')],
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const kc = () => {
    const k = new KubeConfig();
    k.loadFromOptions({
      clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    return k;
  };

  it('follows continue tokens and filters by the manager label', async () => {
    const list = await createKubeSink(kc(), { pageSize: 2 }).list();
    assert.deepEqual(
      list.map((e) => e.name),
      ['a', 'b', 'c'],
    );
    const efLists = seen.filter((s) => s.includes('/envoyfilters'));
    assert.equal(efLists.length, 2);
    assert.ok(efLists.every((s) => s.includes('labelSelector=manager%3DAeraki') && s.includes('limit=2')));
    assert.ok(efLists[1]?.includes('continue=p2'));
  });

  it('takes the spec hash of an object known at the same resourceVersion, and hashes the others', async () => {
    const computed = specHash({ configPatches: [] });
    const asked: string[] = [];
    const pagesAsked = () => seen.filter((x) => x.includes('/envoyfilters')).length;
    const before = pagesAsked();
    const pagesWhenAsked: number[] = [];
    const list = await createKubeSink(kc(), { pageSize: 2 }).list((kind, namespace, name) => {
      asked.push(`${kind}/${namespace}/${name}`);
      if (kind === 'EnvoyFilter') pagesWhenAsked.push(pagesAsked() - before);
      // 'a' is known at the listed resourceVersion, 'b' at an older one, 'c' not at all.
      if (name === 'c') return undefined;
      return {
        kind,
        namespace,
        name,
        resourceVersion: name === 'a' ? '5' : '4',
        labels: {},
        annotations: {},
        specHash: 'hash-of-a-at-5',
      };
    });
    assert.deepEqual(
      list.map((e) => [e.name, e.specHash]),
      [
        ['a', 'hash-of-a-at-5'],
        ['b', computed],
        ['c', computed],
      ],
    );
    assert.ok(asked.includes('EnvoyFilter/istio-system/a'));
    // Each page is read as it arrives: the items of the first before the second is asked for.
    assert.deepEqual(pagesWhenAsked, [1, 1, 2]);
  });

  it('maps AlreadyExists on create to a terminal SinkError', async () => {
    await assert.rejects(
      createKubeSink(kc()).create(item('a') as never),
      (err: Error & { transient?: boolean; reason?: string; code?: number }) => {
        assert.equal(err.name, 'SinkError');
        assert.equal(err.code, 409);
        assert.equal(err.reason, 'AlreadyExists');
        assert.equal(err.transient, false);
        return true;
      },
    );
  });
});
