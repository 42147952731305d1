// Kubernetes v1 Services → the ServiceEntry istiod synthesises (src/model/parse/service.ts), through parseConfigObject.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { ConvertedService } from '../../../src/model/objects.ts';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import { formatIssue } from '../../../src/model/result.ts';

function service(yaml: string, clusterDomain?: string): ConvertedService {
  const r = parseConfigObject(parseYaml(yaml), clusterDomain ? { clusterDomain } : undefined);
  assert.ok(r, 'recognised');
  assert.ok(r.ok, `valid: ${r.issues.map(formatIssue).join('; ')}`);
  assert.equal(r.value.kind, 'Service');
  return r.value;
}

const CLUSTER_IP = `
apiVersion: v1
kind: Service
metadata:
  name: provider
  namespace: meta
  labels: {app: provider}
  creationTimestamp: "2024-01-01T00:00:00Z"
spec:
  type: ClusterIP
  clusterIP: 10.96.0.20
  clusterIPs: [10.96.0.20]
  selector: {app: provider, version: v1}
  ports:
  - {name: tcp-metaprotocol-dubbo, port: 20880, targetPort: 20881, protocol: TCP}
  - {name: http-admin, port: 8080, targetPort: admin}
  - {name: udp-stats, port: 9125, protocol: UDP}
`;

describe('Kubernetes Service → ServiceEntry', () => {
  it('ClusterIP Service with several ports: host, address, ports, target ports, selector', () => {
    const s = service(CLUSTER_IP);
    assert.equal(s.apiVersion, 'v1');
    assert.deepEqual(s.metadata.labels, { app: 'provider' });
    assert.equal(s.metadata.creationTimestamp, '2024-01-01T00:00:00Z');
    assert.deepEqual(s.spec, {
      hosts: ['provider.meta.svc.cluster.local'],
      addresses: ['10.96.0.20'],
      ports: [
        { number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP', targetPort: 20881 },
        { number: 8080, name: 'http-admin', protocol: 'TCP', targetPortName: 'admin' },
        { number: 9125, name: 'udp-stats', protocol: 'UDP' },
      ],
      location: 'MESH_INTERNAL',
      resolution: 'STATIC',
      workloadSelector: { labels: { app: 'provider', version: 'v1' } },
    });
  });

  it('headless Service: no address, resolution NONE, selector kept', () => {
    const s = service(`
apiVersion: v1
kind: Service
metadata: {name: zk-headless, namespace: kafka}
spec:
  clusterIP: None
  selector: {app: zookeeper}
  ports: [{name: tcp-zookeeper-client, port: 2181, targetPort: client}]
`);
    assert.deepEqual(s.spec.addresses, []);
    assert.equal(s.spec.resolution, 'NONE');
    assert.deepEqual(s.spec.ports, [
      { number: 2181, name: 'tcp-zookeeper-client', protocol: 'TCP', targetPortName: 'client' },
    ]);
    assert.deepEqual(s.spec.workloadSelector, { labels: { app: 'zookeeper' } });
  });

  it('a port without a name, no selector, no cluster IP yet, namespace defaulted', () => {
    const s = service(`
apiVersion: v1
kind: Service
metadata: {name: plain}
spec:
  ports: [{port: 6379}]
`);
    assert.equal(s.metadata.namespace, 'default');
    assert.deepEqual(s.spec, {
      hosts: ['plain.default.svc.cluster.local'],
      addresses: [],
      ports: [{ number: 6379, name: '', protocol: 'TCP' }],
      location: 'MESH_INTERNAL',
      resolution: 'STATIC',
    });
  });

  it('ExternalName Service: MESH_EXTERNAL, DNS, no address (as istiod)', () => {
    const s = service(`
apiVersion: v1
kind: Service
metadata: {name: external-redis, namespace: redis}
spec:
  type: ExternalName
  externalName: redis.example.com
  ports: [{name: tcp-redis, port: 6379}]
`);
    assert.deepEqual(s.spec, {
      hosts: ['external-redis.redis.svc.cluster.local'],
      addresses: [],
      ports: [{ number: 6379, name: 'tcp-redis', protocol: 'TCP' }],
      location: 'MESH_EXTERNAL',
      resolution: 'DNS',
    });
  });

  it('dual stack: every cluster IP; the exportTo annotation; --cluster-domain', () => {
    const s = service(
      `
apiVersion: v1
kind: Service
metadata:
  name: dual
  namespace: ns
  annotations: {networking.istio.io/exportTo: " ns, . ,istio-system"}
spec:
  clusterIP: 10.96.0.30
  clusterIPs: [10.96.0.30, "fd00::30"]
  ports: [{name: tcp-thrift, port: 9090}]
`,
      'corp.example',
    );
    assert.deepEqual(s.spec.hosts, ['dual.ns.svc.corp.example']);
    assert.deepEqual(s.spec.addresses, ['10.96.0.30', 'fd00::30']);
    assert.deepEqual(s.spec.exportTo, ['.', 'istio-system', 'ns']);
  });

  it('bad fields are issues naming the Service and the field', () => {
    const r = parseConfigObject({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'bad', namespace: 'shop' },
      spec: {
        clusterIP: 7,
        selector: { app: 1 },
        ports: [
          { name: 'ok', port: 80 },
          { name: 5, port: 0 },
          { name: 'x' },
          { port: 81, targetPort: true },
        ],
      },
    });
    assert.ok(r && !r.ok);
    assert.deepEqual(r.issues.map(formatIssue), [
      'Service shop/bad: spec.clusterIP: expected a string, got number 7',
      'Service shop/bad: spec.selector.app: expected a string, got number 1',
      'Service shop/bad: spec.ports[1].port: expected an integer between 1 and 65535, got 0',
      'Service shop/bad: spec.ports[1].name: expected a string, got number 5',
      'Service shop/bad: spec.ports[2].port: required field is missing',
      'Service shop/bad: spec.ports[3].targetPort: expected a number, got boolean true',
    ]);
  });

  it('only core v1 Services are read', () => {
    const raw = parseYaml(CLUSTER_IP) as Record<string, unknown>;
    assert.equal(parseConfigObject({ ...raw, apiVersion: 'serving.knative.dev/v1' }), undefined);
  });
});
