// Kubernetes Services in `aeraki render` (and the store behind every source): a Service renders the same filters
// and routes as the ServiceEntry istiod synthesises for it; it never replaces a ServiceEntry of the same name; its
// issues name the Service; --cluster-domain reaches Service hosts and short hosts alike.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { render, type RenderOptions } from '../../src/app/render.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import { parseConfigObject } from '../../src/model/parse/parse.ts';
import { formatIssue } from '../../src/model/result.ts';

const dir = mkdtempSync(join(tmpdir(), 'render-services-'));
let files = 0;

function renderYaml(yaml: string, options: Partial<RenderOptions> = {}) {
  const r = render({ ...renderOptions(), files: [write(yaml)], ...options });
  const items = (JSON.parse(r.stdout) as { items: Record<string, any>[] }).items;
  return { items, issues: r.issues.map(formatIssue) };
}

/** The rendered items without the source annotation (the one place a Service and its ServiceEntry differ). */
function withoutSource(items: readonly Record<string, any>[]): unknown[] {
  return items.map((o) => {
    if (!o.metadata?.annotations) return o;
    const { [SOURCE_ANNOTATION]: source, ...annotations } = o.metadata.annotations as Record<string, string>;
    assert.ok(source, 'every generated object names its source');
    return { ...o, metadata: { ...o.metadata, annotations } };
  });
}

const CONFIG = `
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: provider, namespace: meta}
spec:
  host: provider
  subsets:
  - {name: v1, labels: {version: v1}}
  - {name: v2, labels: {version: v2}}
---
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: provider, namespace: meta}
spec:
  hosts: [provider.meta.svc.cluster.local]
  routes:
  - name: v1
    match: {attributes: {method: {exact: sayHello}}}
    route: [{destination: {host: provider.meta.svc.cluster.local, subset: v1}}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: legacy, namespace: meta}
spec:
  hosts: [provider]
  http:
  - route: [{destination: {host: provider, subset: v2}, weight: 100}]
`;

const SERVICE = `
apiVersion: v1
kind: Service
metadata: {name: provider, namespace: meta}
spec:
  clusterIP: 10.96.0.20
  selector: {app: provider}
  ports:
  - {name: tcp-metaprotocol-dubbo, port: 20880, targetPort: 20880}
  - {name: tcp-dubbo, port: 20881}
  - {name: http-admin, port: 8080}
---
${CONFIG}`;

const SERVICE_ENTRY = `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: provider, namespace: meta}
spec:
  hosts: [provider.meta.svc.cluster.local]
  addresses: [10.96.0.20]
  location: MESH_INTERNAL
  resolution: STATIC
  workloadSelector: {labels: {app: provider}}
  ports:
  - {name: tcp-metaprotocol-dubbo, number: 20880, protocol: TCP, targetPort: 20880}
  - {name: tcp-dubbo, number: 20881, protocol: TCP}
  - {name: http-admin, number: 8080, protocol: TCP}
---
${CONFIG}`;

describe('Kubernetes Services in render', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a Service renders the same EnvoyFilters and routes as the equivalent ServiceEntry', () => {
    const fromService = renderYaml(SERVICE);
    const fromEntry = renderYaml(SERVICE_ENTRY);
    assert.deepEqual(fromService.issues, []);
    assert.deepEqual(fromEntry.issues, []);
    // MetaProtocol and Dubbo, each outbound on the cluster IP and inbound on the selected pods.
    assert.equal(fromService.items.length, 4);
    assert.deepEqual(withoutSource(fromService.items), withoutSource(fromEntry.items));
    assert.ok(
      fromService.items.every((o) => o.metadata.annotations[SOURCE_ANNOTATION] === 'Service/meta/provider'),
    );
    assert.ok(
      fromService.items.some(
        (o) => o.metadata.name === 'aeraki-outbound-provider.meta.svc.cluster.local-10.96.0.20-20880',
      ),
    );
    const svcRoutes = render({ ...renderOptions(), files: [write(SERVICE)], routes: true }).stdout;
    const seRoutes = render({ ...renderOptions(), files: [write(SERVICE_ENTRY)], routes: true }).stdout;
    assert.equal(svcRoutes, seRoutes);
    assert.match(svcRoutes, /provider\.meta\.svc\.cluster\.local_20880/);
  });

  it('a Service and a ServiceEntry of the same name both render; neither replaces the other', () => {
    const entry = SERVICE_ENTRY.replace(
      'hosts: [provider.meta.svc.cluster.local]',
      'hosts: [provider.legacy]',
    );
    const both = renderYaml(`${SERVICE}\n---\n${entry.split('---')[0]}`);
    assert.deepEqual(both.issues, []);
    const sources = [...new Set(both.items.map((o) => o.metadata.annotations[SOURCE_ANNOTATION]))].sort();
    assert.deepEqual(sources, ['Service/meta/provider', 'ServiceEntry/meta/provider']);
  });

  it("a Service's issues name the Service and its field", () => {
    const r = renderYaml(`
apiVersion: v1
kind: Service
metadata: {name: nocodec, namespace: shop}
spec:
  clusterIP: 10.96.0.9
  ports: [{name: http, port: 80}, {name: tcp-metaprotocol, port: 9000}]
---
apiVersion: v1
kind: Service
metadata: {name: broken, namespace: shop}
spec:
  ports: [{name: tcp-dubbo, port: 20880}, {name: [x], port: 1}]
`);
    assert.deepEqual(r.items, []);
    assert.deepEqual(r.issues, [
      'Service shop/broken: spec.ports[1].name: expected a string, got a list',
      'Service shop/nocodec: spec.ports[1].name: port name "tcp-metaprotocol" has no application protocol segment (tcp-metaprotocol-<protocol>)',
    ]);
  });

  it('--cluster-domain: Service hosts and short hosts use it', () => {
    const yaml = SERVICE.replaceAll('provider.meta.svc.cluster.local', 'provider');
    const routes = JSON.parse(
      render({ ...renderOptions(), files: [write(yaml)], routes: true, clusterDomain: 'corp.example' })
        .stdout,
    ) as { items: { name: string; virtualHosts: { routes: { name: string }[] }[] }[] };
    assert.deepEqual(
      routes.items.map((r) => r.name),
      ['provider.meta.svc.corp.example_20880'],
    );
    const names = routes.items[0]!.virtualHosts[0]!.routes.map((r) => r.name);
    assert.ok(names.includes('v1'), `the MetaRouter of the short host applies: ${names.join()}`);
    const filters = renderYaml(yaml, { clusterDomain: 'corp.example' }).items.map((o) => o.metadata.name);
    assert.ok(
      filters.includes('aeraki-outbound-provider.meta.svc.corp.example-10.96.0.20-20880'),
      filters.join(),
    );
  });

  it('the store keeps Services and ServiceEntries apart and lists both as service entries', () => {
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    for (const raw of [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a', namespace: 'ns' }, spec: { ports: [] } },
      {
        apiVersion: 'networking.istio.io/v1',
        kind: 'ServiceEntry',
        metadata: { name: 'a', namespace: 'ns' },
        spec: { hosts: ['a.ext'] },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'b', namespace: 'ns' }, spec: { ports: [] } },
    ]) {
      const r = parseConfigObject(raw);
      assert.ok(r?.ok);
      store.upsert(r.value);
    }
    const list = () => store.serviceEntries().map((s) => `${s.kind} ${s.metadata.name}`);
    assert.deepEqual(list(), ['ServiceEntry a', 'Service a', 'Service b']);
    store.delete('Service', 'ns', 'a');
    assert.deepEqual(list(), ['ServiceEntry a', 'Service b']);
    assert.equal(store.get('ServiceEntry', 'ns', 'a')?.spec.hosts[0], 'a.ext');
  });
});

function renderOptions(): RenderOptions {
  return { files: [], output: 'json', routes: false, rootNamespace: 'istio-system', namespaceScope: false };
}

function write(yaml: string): string {
  const file = join(dir, `${files++}.yaml`);
  writeFileSync(file, yaml);
  return file;
}
