// Conflicts and silently ignored input are warnings, never errors (render exits 0): two VirtualServices or
// DestinationRules for one host (on both objects, the oldest is used), a Gateway port claimed by two MetaRouters,
// Dubbo and Thrift VirtualService matches after match[0], and a mesh ConfigMap outside the root namespace.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { render } from '../../src/app/render.ts';
import { hasErrors, issueLine } from '../../src/model/result.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-warnings-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Renders `yaml` (EnvoyFilters, or routes); asserts there is no error and returns the issue lines and output. */
function renderYaml(name: string, yaml: string, routes = false): { lines: string[]; doc: unknown } {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  const result = render({
    files: [file],
    output: 'json',
    routes,
    rootNamespace: 'istio-system',
    namespaceScope: false,
  });
  assert.equal(hasErrors(result.issues), false, result.issues.map(issueLine).join('\n'));
  return { lines: result.issues.map(issueLine), doc: JSON.parse(result.stdout) };
}

function serviceEntry(protocol: string): string {
  return `
apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata: {name: demo, namespace: shop}
spec:
  hosts: [demo.shop.svc.cluster.local]
  addresses: [10.0.0.1]
  ports: [{number: 9000, name: tcp-${protocol}, protocol: TCP}]
  resolution: STATIC
`;
}

describe('conflict and ignored-input warnings', () => {
  it('two VirtualServices for one host (short and FQDN): the oldest is used, a warning on each', () => {
    const yaml = `${serviceEntry('dubbo')}---
apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata: {name: newer, namespace: shop, creationTimestamp: "2026-01-02T00:00:00Z"}
spec:
  hosts: [demo]
  http: [{route: [{destination: {host: demo, subset: v2}}]}]
---
apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata: {name: older, namespace: shop, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  hosts: [demo.shop.svc.cluster.local]
  http: [{route: [{destination: {host: demo, subset: v1}}]}]
`;
    const { lines, doc } = renderYaml('vs', yaml);
    assert.ok(
      lines.includes(
        'warning: VirtualService shop/newer: spec.hosts[0]: VirtualService shop/older is also for host "demo" and is ' +
          'used (the oldest wins): this one is ignored for it',
      ),
      lines.join('\n'),
    );
    assert.ok(
      lines.includes(
        'warning: VirtualService shop/older: spec.hosts: VirtualService shop/newer is also for host "demo": this one ' +
          'is used (the oldest wins), that one is ignored for it',
      ),
      lines.join('\n'),
    );
    const text = JSON.stringify(doc);
    assert.ok(text.includes('outbound|9000|v1|demo.shop.svc.cluster.local'));
    assert.ok(!text.includes('|v2|'));
  });

  it('two DestinationRules for one host: the oldest is used, a warning on each', () => {
    const yaml = `${serviceEntry('dubbo')}---
apiVersion: networking.istio.io/v1beta1
kind: DestinationRule
metadata: {name: a-newer, namespace: shop, creationTimestamp: "2026-01-02T00:00:00Z"}
spec: {host: demo.shop.svc.cluster.local}
---
apiVersion: networking.istio.io/v1beta1
kind: DestinationRule
metadata: {name: b-older, namespace: shop, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {host: demo}
`;
    const { lines } = renderYaml('dr', yaml);
    assert.deepEqual(
      lines.filter((l) => l.includes('DestinationRule')),
      [
        'warning: DestinationRule shop/a-newer: spec.host: DestinationRule shop/b-older is also for host ' +
          '"demo.shop.svc.cluster.local" and is used (the oldest wins): this one is ignored for it',
        'warning: DestinationRule shop/b-older: spec.host: DestinationRule shop/a-newer is also for host ' +
          '"demo.shop.svc.cluster.local": this one is used (the oldest wins), that one is ignored for it',
      ],
    );
  });

  it('a Gateway port claimed by two MetaRouters: the oldest is used there, a warning on each, no error', () => {
    const router = (name: string, day: number, index: number) => `---
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: ${name}, namespace: meta, creationTimestamp: "2026-01-0${day}T00:00:00Z"}
spec:
  gateways: [istio-system/ingress]
  hosts: [${name}.meta.svc.cluster.local]
  routes: [{route: [{destination: {host: ${name}.meta.svc.cluster.local, port: {number: 9090}}}]}]
---
apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata: {name: ${name}, namespace: meta}
spec:
  hosts: [${name}.meta.svc.cluster.local]
  addresses: [10.0.1.${index}]
  ports: [{number: 9090, name: tcp-metaprotocol-thrift, protocol: TCP}]
  resolution: STATIC
`;
    const yaml = `apiVersion: networking.istio.io/v1beta1
kind: Gateway
metadata: {name: ingress, namespace: istio-system}
spec:
  selector: {istio: ingressgateway}
  servers: [{hosts: ["*"], port: {name: tcp-metaprotocol-thrift, number: 9090, protocol: TCP}}]
${router('a-newer', 2, 1)}${router('b-older', 1, 2)}`;
    const { lines, doc } = renderYaml('gateway', yaml);
    const port = 'port 9090 of Gateway istio-system/ingress (one gateway filter per port)';
    assert.deepEqual(
      lines.filter((l) => l.includes('spec.gateways')),
      [
        `warning: MetaRouter meta/a-newer: spec.gateways[0]: MetaRouter meta/b-older is also for ${port} and is ` +
          'used (the oldest wins): this one is ignored for it',
        `warning: MetaRouter meta/b-older: spec.gateways[0]: MetaRouter meta/a-newer is also for ${port}: this ` +
          'one is used (the oldest wins), that one is ignored for it',
      ],
    );
    const gatewayVs = (doc as { items: { kind: string; spec: { hosts?: string[] } }[] }).items.filter(
      (o) => o.kind === 'VirtualService',
    );
    assert.deepEqual(
      gatewayVs.map((o) => o.spec.hosts),
      [['b-older.meta.svc.cluster.local']],
    );
  });

  it('two Gateways selecting the same workloads on one MetaProtocol port: a warning on each, no error', () => {
    const gateway = (name: string, namespace: string, selector: string, port = 9090) => `---
apiVersion: networking.istio.io/v1beta1
kind: Gateway
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  selector: ${selector}
  servers: [{hosts: ["*"], port: {name: tcp-metaprotocol-thrift, number: ${port}, protocol: TCP}}]
`;
    const yaml = [
      gateway('a', 'istio-system', '{istio: ingressgateway}'),
      // the same selector in another namespace: the same workloads
      gateway('b', 'edge', '{istio: ingressgateway}'),
      // compatible, but in another namespace: not counted
      gateway('c', 'edge2', '{istio: ingressgateway, zone: east}'),
      // compatible in the same namespace as a: counted
      gateway('d', 'istio-system', '{istio: ingressgateway, zone: west}'),
      // a different value: never the same workloads
      gateway('e', 'istio-system', '{istio: eastwest}'),
      // the same selector on another port: no conflict
      gateway('f', 'istio-system', '{istio: ingressgateway}', 9091),
    ].join('');
    const { lines } = renderYaml('gateway-selectors', yaml);
    const claim = (gw: string, sel: string, other: string, otherSel: string) =>
      `warning: Gateway ${gw}: spec.servers[0].port.number: Gateway ${other} (selector ${otherSel}) selects the ` +
      `same workloads as this one (selector ${sel}) and also has a MetaProtocol server on port 9090: both ` +
      'gateway filters replace the filter of the same listener, and which one the gateway keeps is undefined';
    const ingress = 'istio=ingressgateway';
    const west = 'istio=ingressgateway,zone=west';
    assert.deepEqual(
      lines.filter((l) => l.startsWith('warning: Gateway')),
      [
        claim('edge/b', ingress, 'istio-system/a', ingress),
        claim('istio-system/a', ingress, 'edge/b', ingress),
        claim('istio-system/a', ingress, 'istio-system/d', west),
        claim('istio-system/d', west, 'istio-system/a', ingress),
      ],
    );
  });

  for (const protocol of ['dubbo', 'thrift']) {
    it(`${protocol}: a VirtualService http entry with two matches gets a warning at match[1]`, () => {
      const yaml = `${serviceEntry(protocol)}---
apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata: {name: two-matches, namespace: shop}
spec:
  hosts: [demo.shop.svc.cluster.local]
  http:
  - route: [{destination: {host: demo}}]
  - match: [{method: {exact: a}}, {method: {exact: b}}, {method: {exact: c}}]
    route: [{destination: {host: demo, subset: v1}}]
`;
      const { lines } = renderYaml(`matches-${protocol}`, yaml);
      assert.deepEqual(
        lines.filter((l) => l.includes('match[1]')),
        [
          `warning: VirtualService shop/two-matches: spec.http[1].match[1]: only match[0] is used for ${protocol} ` +
            'service demo.shop.svc.cluster.local:9000 (one match per route): 2 more matches are ignored',
        ],
      );
    });
  }

  it('a mesh ConfigMap outside the root namespace is ignored with a warning', () => {
    const yaml = `${serviceEntry('dubbo')}---
apiVersion: v1
kind: ConfigMap
metadata: {name: istio, namespace: elsewhere}
data:
  mesh: "accessLogFile: /dev/stdout"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: istio, namespace: no-mesh-key}
data: {other: x}
`;
    const { lines, doc } = renderYaml('mesh', yaml);
    assert.deepEqual(lines, [
      'warning: ConfigMap elsewhere/istio: data.mesh: the mesh config is read from ConfigMap istio-system/istio ' +
        'only (the root namespace): this one is ignored',
    ]);
    assert.ok(!JSON.stringify(doc).includes('access_log'));
  });
});
