import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fillStore, loadConfigFiles } from '../../src/controller/file-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { formatIssue } from '../../src/model/result.ts';

const SE = (name: string, ns = 'shop') => `apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata: {name: ${name}, namespace: ${ns}}
spec:
  hosts: [${name}.${ns}.svc.cluster.local]
  ports: [{number: 9090, name: tcp-metaprotocol-thrift}]
`;

describe('file source', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'aeraki-files-'));
    mkdirSync(path.join(dir, 'nested', 'deeper'), { recursive: true });
    writeFileSync(path.join(dir, 'b.yaml'), `${SE('b')}---\n${SE('c')}\n---\n# empty document\n`);
    writeFileSync(path.join(dir, 'a.yml'), SE('a'));
    writeFileSync(
      path.join(dir, 'nested', 'deeper', 'list.json'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
            kind: 'ApplicationProtocol',
            metadata: { name: 'trpc' },
            spec: { protocol: 'trpc', codec: 'c.trpc' },
          },
          { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ignored' } },
        ],
      }),
    );
    writeFileSync(path.join(dir, 'nested', 'readme.txt'), 'not config');
    writeFileSync(
      path.join(dir, 'nested', 'mesh.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: "accessLogFile: /dev/stdout"\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio, namespace: other}\ndata:\n  mesh: "accessLogFile: /wrong"\n',
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads directories recursively in sorted order: YAML documents, JSON, List items, the mesh ConfigMap', () => {
    const r = loadConfigFiles([dir], { rootNamespace: 'istio-system' });
    // The mesh ConfigMap of another namespace is ignored, with a warning (nothing is silently ignored).
    assert.deepEqual(r.issues.map(formatIssue), [
      'ConfigMap other/istio: data.mesh: the mesh config is read from ConfigMap istio-system/istio only (the root ' +
        'namespace): this one is ignored',
    ]);
    assert.deepEqual(
      r.objects.map((o) => `${o.kind}/${o.metadata.name}`),
      ['ServiceEntry/a', 'ServiceEntry/b', 'ServiceEntry/c', 'ApplicationProtocol/trpc'],
    );
    assert.equal(r.mesh.accessLogFile, '/dev/stdout');
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    fillStore(store, r);
    assert.equal(store.serviceEntries().length, 3);
    assert.equal(store.codecFor('trpc'), 'c.trpc');
    assert.equal(store.mesh().accessLogFile, '/dev/stdout');
  });

  it('YAML syntax errors name the file, line and column; invalid objects are rejected and reported; the rest loads', () => {
    const bad = path.join(dir, 'bad');
    mkdirSync(bad);
    writeFileSync(path.join(bad, '1-syntax.yaml'), 'kind: [unclosed\n');
    writeFileSync(
      path.join(bad, '2-invalid.yaml'),
      `${SE('ok')}---\n${SE('broken').replace('number: 9090', 'number: "x"')}---\n42\n`,
    );
    const r = loadConfigFiles([bad, path.join(dir, 'missing.yaml')], { rootNamespace: 'istio-system' });
    const messages = r.issues.map(formatIssue);
    assert.equal(messages.length, 4, messages.join('\n'));
    assert.match(messages[0]!, /^File .*missing\.yaml: cannot read/);
    assert.equal(
      messages[1],
      `File ${path.join(bad, '1-syntax.yaml')}: line 2, column 1: invalid YAML: unexpected end of the stream within a flow collection`,
    );
    assert.equal(
      messages[2],
      `File ${path.join(bad, '2-invalid.yaml')}: documents[2]: expected a Kubernetes object`,
    );
    assert.equal(
      messages[3],
      'ServiceEntry shop/broken: spec.ports[0].number: expected a number, got string "x"',
    );
    assert.deepEqual(
      r.objects.map((o) => o.metadata.name),
      ['ok'],
    );
    assert.deepEqual(
      r.rejected.map((x) => x.ref.name),
      ['broken'],
    );
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    fillStore(store, r);
    assert.deepEqual(
      store.rejected().map((x) => x.ref.name),
      ['broken'],
    );
    rmSync(bad, { recursive: true });
  });

  it('the mesh ConfigMap is read from the root namespace given', () => {
    const r = loadConfigFiles([path.join(dir, 'nested', 'mesh.yaml')], { rootNamespace: 'other' });
    assert.equal(r.mesh.accessLogFile, '/wrong');
    assert.equal(r.mesh.rootNamespace, 'other');
    assert.deepEqual(r.issues.map(formatIssue), [
      'ConfigMap istio-system/istio: data.mesh: the mesh config is read from ConfigMap other/istio only (the root ' +
        'namespace): this one is ignored',
    ]);
  });

  it('a later definition of the same object wins', () => {
    const file = path.join(dir, 'dup.yaml');
    writeFileSync(file, `${SE('dup')}---\n${SE('dup').replace('9090', '9191')}`);
    const r = loadConfigFiles([file], { rootNamespace: 'istio-system' });
    assert.equal(r.objects.length, 1);
    const se = r.objects[0]!;
    assert.ok(se.kind === 'ServiceEntry' && se.spec.ports[0]!.number === 9191);
    rmSync(file);
  });
});

describe('YAML merge keys', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-merge-keys-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('an object of a kind read with a << key is refused at the key; other kinds are not looked at', () => {
    const file = path.join(dir, 'merge.yaml');
    writeFileSync(
      file,
      `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: defaults, namespace: shop}
  data: &ports {a: b}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: more, namespace: shop}
  data: {<<: *ports, c: d}
- ${SE('orders').trimEnd().split('\n').join('\n  ')}
- apiVersion: networking.istio.io/v1
  kind: DestinationRule
  metadata: {name: orders, namespace: shop}
  spec:
    host: orders.shop.svc.cluster.local
    trafficPolicy: {<<: {tls: {mode: DISABLE}}}
`,
    );
    const loaded = loadConfigFiles([file], { rootNamespace: 'istio-system' });
    assert.deepEqual(loaded.issues.map(formatIssue), [
      'DestinationRule shop/orders: spec.trafficPolicy.<<: merge keys (<<) are not supported: write the merged fields out',
    ]);
    assert.deepEqual(
      loaded.objects.map((o) => `${o.kind}/${o.metadata.name}`),
      ['ServiceEntry/orders'],
    );
  });
});
