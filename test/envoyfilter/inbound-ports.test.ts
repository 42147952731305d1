// D16: inbound filters match the port the workload receives on (a ServiceEntry port's targetPort, a Kubernetes
// Service's EndpointSlices), one patch per distinct port, named after the service port; outbound filters keep the
// service port; a named targetPort that cannot be resolved keeps the service port with a warning; a slice change
// regenerates exactly the Service it belongs to.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EndpointPortIndex } from '../../src/controller/endpoint-ports.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { inboundPortsOf } from '../../src/envoyfilter/inbound-ports.ts';
import { kubeServiceOf } from '../../src/model/names.ts';
import { IncrementalGenerator } from '../../src/envoyfilter/incremental.ts';
import type { ConvertedService, EnvoyFilterObject, ServiceEntry } from '../../src/model/objects.ts';
import { issueLine } from '../../src/model/result.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { dubboAuthorizationPolicy, dubboSource, meta, serviceEntry, storeOf } from '../support/builders.ts';

const OPTIONS = { namespaceScope: false };
const HOST = 'ledger.pay.svc.cluster.local';

/** A Kubernetes Service converted (kind Service) with one native Dubbo port. */
function service(
  targetPort: { targetPort?: number; targetPortName?: string },
  name = 'ledger',
): ConvertedService {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta('pay', name),
    spec: {
      hosts: [`${name}.pay.svc.cluster.local`],
      addresses: ['10.96.0.2'],
      ports: [{ number: 20880, name: 'tcp-dubbo', protocol: 'TCP', ...targetPort }],
      workloadSelector: { labels: { app: name } },
    },
  };
}

/** istiod's synthetic ServiceEntry of Service pay/<name> over MCP: no targetPort. */
function synthetic(name = 'ledger', host = `${name}.pay.svc.cluster.local`): ServiceEntry {
  return serviceEntry('pay', `synthetic-${name}`, {
    hosts: [host],
    addresses: ['10.96.0.2'],
    ports: [{ number: 20880, name: 'tcp-dubbo', protocol: 'TCP' }],
    workloadSelector: { labels: { app: name } },
  });
}

const deny = dubboAuthorizationPolicy('pay', 'deny-batch', {
  action: 'DENY',
  rules: [{ from: [{ source: dubboSource({ namespaces: ['batch'] }) }], to: [] }],
});

function filters(objects: readonly { kind: string }[]): EnvoyFilterObject[] {
  return objects.filter((o): o is EnvoyFilterObject => o.kind === 'EnvoyFilter');
}

function inbound(objects: readonly { kind: string }[], host = HOST): EnvoyFilterObject {
  const f = filters(objects).find((o) => o.metadata.name === `aeraki-inbound-${host}-20880`);
  assert.ok(f, `inbound filter of ${host}`);
  return f;
}

/** destinationPort and the inbound cluster of each patch of an inbound filter. */
function patchPorts(f: EnvoyFilterObject): { port: unknown; cluster: unknown; rbac: boolean }[] {
  return f.spec.configPatches.map((p) => {
    const listener = (p.match as { listener: { filterChain: { destinationPort: unknown } } }).listener;
    const value = JSON.stringify(p.patch.value);
    return {
      port: listener.filterChain.destinationPort,
      cluster: /"cluster":"(inbound\|\d+\|\|)"/.exec(value)?.[1],
      rbac: value.includes('envoy.filters.dubbo.rbac'),
    };
  });
}

describe('inbound filters on the workload port (D16)', () => {
  it('a ServiceEntry targetPort: inbound on 20881 (with the RBAC filter of a DENY policy), outbound on 20880', () => {
    const se = serviceEntry('pay', 'ledger', {
      hosts: [HOST],
      addresses: ['240.240.0.2'],
      ports: [{ number: 20880, name: 'tcp-dubbo', protocol: 'TCP', targetPort: 20881 }],
      workloadSelector: { labels: { app: 'ledger' } },
    });
    const out = generateAll(storeOf([se, deny]), createGenerators(), OPTIONS);
    assert.deepEqual(patchPorts(inbound(out.objects)), [
      { port: 20881, cluster: 'inbound|20881||', rbac: true },
    ]);
    const outbound = filters(out.objects).find((o) => o.metadata.name.startsWith('aeraki-outbound-'));
    const listener = (outbound?.spec.configPatches[0]?.match as { listener: { name: string } }).listener;
    assert.equal(listener.name, '240.240.0.2_20880');
    assert.deepEqual(out.issues.map(issueLine), []);
  });

  it('without targetPort the service port, as Aeraki', () => {
    const se = serviceEntry('pay', 'ledger', {
      hosts: [HOST],
      ports: [{ number: 20880, name: 'tcp-dubbo', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'ledger' } },
    });
    const out = generateAll(storeOf([se]), createGenerators(), OPTIONS);
    assert.deepEqual(patchPorts(inbound(out.objects)), [
      { port: 20880, cluster: 'inbound|20880||', rbac: false },
    ]);
  });

  it('a Service numeric targetPort, without EndpointSlices read (render)', () => {
    const out = generateAll(storeOf([service({ targetPort: 20882 }), deny]), createGenerators(), OPTIONS);
    assert.deepEqual(patchPorts(inbound(out.objects)), [
      { port: 20882, cluster: 'inbound|20882||', rbac: true },
    ]);
  });

  it('a named targetPort offline: the service port and a warning naming the Service and the port', () => {
    const out = generateAll(storeOf([service({ targetPortName: 'dubbo' })]), createGenerators(), OPTIONS);
    assert.deepEqual(patchPorts(inbound(out.objects)), [
      { port: 20880, cluster: 'inbound|20880||', rbac: false },
    ]);
    assert.deepEqual(out.issues.map(issueLine), [
      'warning: Service pay/ledger: spec.ports[0].targetPort: named target port "dubbo" cannot be resolved ' +
        'offline (EndpointSlices are read only with Kubernetes API access); the inbound filter matches the ' +
        'service port 20880',
    ]);
  });

  it('a named targetPort resolved from the slices: no warning; slices that disagree give one patch per port', () => {
    const store = storeOf([service({ targetPortName: 'dubbo' }), deny]);
    store.setSlicePorts('pay', 'ledger-a', {
      service: 'ledger',
      ports: [{ name: 'tcp-dubbo', port: 20883 }],
    });
    store.setSlicePorts('pay', 'ledger-b', {
      service: 'ledger',
      ports: [{ name: 'tcp-dubbo', port: 20881 }],
    });
    store.setSlicePorts('pay', 'ledger-c', {
      service: 'ledger',
      ports: [{ name: 'tcp-dubbo', port: 20883 }],
    });
    const out = generateAll(store, createGenerators(), OPTIONS);
    assert.deepEqual(patchPorts(inbound(out.objects)), [
      { port: 20881, cluster: 'inbound|20881||', rbac: true },
      { port: 20883, cluster: 'inbound|20883||', rbac: true },
    ]);
    assert.deepEqual(out.issues.map(issueLine), []);
  });

  it('slices are read but the Service has none with endpoints: the service port, no warning', () => {
    const store = storeOf([service({ targetPortName: 'dubbo' })]);
    store.readsEndpointPorts();
    store.setSlicePorts('pay', 'ledger-a', { service: 'ledger', ports: [] });
    const out = generateAll(store, createGenerators(), OPTIONS);
    assert.deepEqual(patchPorts(inbound(out.objects)), [
      { port: 20880, cluster: 'inbound|20880||', rbac: false },
    ]);
    assert.deepEqual(out.issues, []);
  });

  it("a synthetic ServiceEntry over MCP (no targetPort) takes its Service's slices", () => {
    const store = storeOf([synthetic(), deny]);
    store.setSlicePorts('pay', 'ledger-x', {
      service: 'ledger',
      ports: [{ name: 'tcp-dubbo', port: 20882 }],
    });
    const out = generateAll(store, createGenerators(), OPTIONS);
    assert.deepEqual(patchPorts(inbound(out.objects)), [
      { port: 20882, cluster: 'inbound|20882||', rbac: true },
    ]);
  });

  it('which objects stand for a Kubernetes Service', () => {
    assert.equal(kubeServiceOf(service({})), 'ledger');
    assert.equal(kubeServiceOf(synthetic()), 'ledger');
    // A user's ServiceEntry named like a synthetic one, for another host, is not the Service.
    assert.equal(kubeServiceOf(synthetic('ledger', 'ledger.example.com')), undefined);
    assert.equal(kubeServiceOf(serviceEntry('pay', 'ledger', { hosts: [HOST] })), undefined);
    // Slices never apply to a ServiceEntry that is no Service.
    const store = storeOf([]);
    store.setSlicePorts('pay', 'ledger-x', { service: 'ledger', ports: [{ name: 'tcp-dubbo', port: 1 }] });
    const plain = serviceEntry('pay', 'ledger', {
      hosts: [HOST],
      ports: [{ number: 20880, name: 'tcp-dubbo' }],
    });
    assert.deepEqual(inboundPortsOf(store, plain, plain.spec.ports[0]!), [20880]);
  });

  it('a slice change regenerates exactly the Service it belongs to', () => {
    const store = storeOf([synthetic('ledger'), synthetic('audit')]);
    store.readsEndpointPorts();
    const inc = new IncrementalGenerator(store, createGenerators(), OPTIONS);
    inc.update();
    store.setSlicePorts('pay', 'ledger-x', {
      service: 'ledger',
      ports: [{ name: 'tcp-dubbo', port: 20882 }],
    });
    const out = inc.update();
    assert.deepEqual(inc.lastRegenerated(), ['ServiceEntry/pay/synthetic-ledger']);
    assert.deepEqual(patchPorts(inbound(out.objects)), [
      { port: 20882, cluster: 'inbound|20882||', rbac: false },
    ]);
    assert.equal(
      JSON.stringify(out.objects),
      JSON.stringify(generateAll(store, createGenerators(), OPTIONS).objects),
      'incremental output equals a full generation',
    );
    // The same ports again (another slice, same port): nothing changes, nothing is regenerated.
    store.setSlicePorts('pay', 'ledger-y', {
      service: 'ledger',
      ports: [{ name: 'tcp-dubbo', port: 20882 }],
    });
    inc.update();
    assert.deepEqual(inc.lastRegenerated(), []);
    inc.stop();
  });
});

describe('EndpointPortIndex', () => {
  it('aggregates slices per Service: distinct, sorted; a slice moving or deleted changes both Services', () => {
    const index = new EndpointPortIndex();
    const p = (port: number, name = 'tcp') => ({ name, port });
    assert.deepEqual(index.set('ns', 's1', { service: 'a', ports: [p(2), p(9, 'http')] }), ['a']);
    assert.deepEqual(index.set('ns', 's2', { service: 'a', ports: [p(1), p(2)] }), ['a']);
    assert.deepEqual(
      [...index.get('ns', 'a')],
      [
        ['http', [9]],
        ['tcp', [1, 2]],
      ],
    );
    assert.deepEqual(
      index.set('ns', 's2', { service: 'a', ports: [p(2), p(1)] }),
      [],
      'same ports: no change',
    );
    assert.deepEqual(index.set('ns', 's2', { service: 'b', ports: [p(1)] }), ['a', 'b']);
    assert.deepEqual(
      [...index.get('ns', 'a')],
      [
        ['http', [9]],
        ['tcp', [2]],
      ],
    );
    assert.deepEqual(index.set('ns', 's1', undefined), ['a']);
    assert.equal(index.get('ns', 'a').size, 0);
    assert.deepEqual([...index.get('ns', 'b')], [['tcp', [1]]]);
    assert.equal(index.get('other', 'b').size, 0, 'namespaces are apart');
  });
});
