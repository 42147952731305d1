// Conversion of Dubbo providers into ServiceEntries (src/registry/convert.ts), one rule at a time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIssue } from '../../src/model/result.ts';
import {
  convertService,
  isServiceAllowed,
  registryEntryName,
  registryHost,
} from '../../src/registry/convert.ts';
import { endpointLabels, isLabelKey, isLabelValue } from '../../src/registry/labels.ts';
import { parseRegistrySpec } from '../../src/registry/spec.ts';
import { isDns1123Subdomain } from '../../src/util/names.ts';
import { provider } from '../fakes/registry/fake-watcher.ts';

const IFACE = 'org.apache.dubbo.samples.DemoService';

function spec(url = 'zookeeper://zk:2181/dubbo') {
  const r = parseRegistrySpec(`zk=${url}`);
  if (!r.ok) throw new Error('bad spec');
  return r.value;
}

describe('registry conversion', () => {
  it('builds one STATIC MESH_INTERNAL ServiceEntry with one tcp-metaprotocol-dubbo port', () => {
    const { entries, issues } = convertService(spec(), 'istio-system', [
      provider(IFACE, '10.0.0.2', 20880, { version: '1.0.0' }),
      provider(IFACE, '10.0.0.1', 20880, { version: '2.0.0' }),
    ]);
    assert.deepEqual(issues, []);
    assert.equal(entries.length, 1);
    const se = entries[0]!;
    assert.equal(se.metadata.name, 'zk-org-apache-dubbo-samples-demoservice');
    assert.equal(se.metadata.namespace, 'istio-system');
    assert.deepEqual(se.metadata.labels, { manager: 'Aeraki', registry: 'zk' });
    assert.deepEqual(se.spec.hosts, ['org.apache.dubbo.samples.demoservice']);
    assert.deepEqual(se.spec.ports, [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }]);
    assert.equal(se.spec.location, 'MESH_INTERNAL');
    assert.equal(se.spec.resolution, 'STATIC');
    // Versions are labels of one host, endpoints sorted by address.
    assert.deepEqual(
      se.spec.endpoints.map((e) => [e.address, e.labels['version']]),
      [
        ['10.0.0.1', '2.0.0'],
        ['10.0.0.2', '1.0.0'],
      ],
    );
  });

  it('keeps one endpoint per version on one address and port, and one for providers differing only in volatile parameters', () => {
    const { entries, issues } = convertService(spec(), 'istio-system', [
      provider(IFACE, '10.0.0.1', 20880, { version: '1.0.0', params: { pid: '1', timestamp: '1' } }),
      provider(IFACE, '10.0.0.1', 20880, { version: '2.0.0', params: { pid: '1', timestamp: '2' } }),
      provider(IFACE, '10.0.0.1', 20880, { version: '2.0.0', params: { pid: '2', timestamp: '3' } }),
      provider(IFACE, '10.0.0.2', 20880, { version: '1.0.0' }),
    ]);
    assert.deepEqual(issues, []);
    assert.deepEqual(
      entries[0]!.spec.endpoints.map((e) => [e.address, e.labels['version']]),
      [
        ['10.0.0.1', '1.0.0'],
        ['10.0.0.1', '2.0.0'],
        ['10.0.0.2', '1.0.0'],
      ],
      'a version 2.0.0 subset has the endpoint that serves it',
    );
  });

  it('makes one host per group, lower-cased and DNS-safe', () => {
    const { entries } = convertService(spec(), 'istio-system', [
      provider(IFACE, '10.0.0.1', 20880, { group: 'Blue_Team' }),
      provider(IFACE, '10.0.0.2', 20880),
    ]);
    assert.deepEqual(
      entries.map((e) => e.spec.hosts[0]),
      ['org.apache.dubbo.samples.demoservice', 'org.apache.dubbo.samples.demoservice-blue-team'],
    );
    const long = registryHost(`org.${'x'.repeat(80)}.Svc`, '');
    assert.ok(
      long.split('.').every((l) => l.length <= 63),
      long,
    );
    const name = registryEntryName('zk', `a.${'y'.repeat(300)}`);
    assert.ok(isDns1123Subdomain(name) && name.length <= 253, name);
  });

  it('copies valid, stable provider parameters as endpoint labels', () => {
    const labels = endpointLabels(
      {
        application: 'demo-provider',
        pid: '4242',
        timestamp: '1700000000000',
        methods: 'sayHello,sayHelloAsync',
        'bad key': 'x',
        release: '3.2.0',
        interface: IFACE,
        side: 'provider',
        deprecated: 'false',
        note: 'has spaces in it',
        aeraki_meta_app_namespace: 'shop',
      },
      '1.2.3',
    );
    assert.deepEqual(labels, {
      application: 'demo-provider',
      deprecated: 'false',
      interface: IFACE,
      release: '3.2.0',
      side: 'provider',
      version: '1.2.3',
    });
    assert.ok(isLabelKey('example.com/tier') && !isLabelKey('-x') && !isLabelKey('a/'));
    assert.ok(isLabelValue('') && !isLabelValue('x'.repeat(64)) && !isLabelValue('a b'));
  });

  it('reads locality, service account, weight and namespace from provider parameters', () => {
    const params = {
      aeraki_meta_locality: 'region1/zone1',
      aeraki_meta_app_service_account: 'demo',
      aeraki_meta_app_namespace: 'shop',
      weight: '50',
    };
    const { entries } = convertService(spec('zookeeper://zk?targetNamespace=dubbo'), 'istio-system', [
      provider(IFACE, '10.0.0.1', 20880, { params }),
    ]);
    const se = entries[0]!;
    assert.equal(se.metadata.namespace, 'shop');
    assert.deepEqual(se.spec.endpoints[0], {
      address: '10.0.0.1',
      ports: { 'tcp-metaprotocol-dubbo': 20880 },
      labels: { interface: IFACE, side: 'provider', weight: '50' },
      locality: 'region1/zone1',
      serviceAccount: 'demo',
      weight: 50,
    });
  });

  it('uses the target namespace, then the root namespace', () => {
    const p = [provider(IFACE, '10.0.0.1')];
    assert.equal(
      convertService(spec('zookeeper://zk?targetNamespace=dubbo'), 'istio-system', p).entries[0]!.metadata
        .namespace,
      'dubbo',
    );
    assert.equal(convertService(spec(), 'root-ns', p).entries[0]!.metadata.namespace, 'root-ns');
  });

  it('drops invalid endpoints with a warning naming the registry and the origin', () => {
    const bad = provider(IFACE, 'not-an-ip', 20880);
    const out = provider(IFACE, '10.0.0.9', 70000);
    const { entries, issues } = convertService(spec(), 'istio-system', [
      provider(IFACE, '10.0.0.1'),
      bad,
      out,
    ]);
    assert.deepEqual(
      entries[0]!.spec.endpoints.map((e) => e.address),
      ['10.0.0.1'],
    );
    const text = issues.map(formatIssue);
    assert.equal(
      issues.every((i) => i.severity === 'warning'),
      true,
    );
    assert.ok(
      text.some((t) => t.startsWith('Registry zk: provider ' + bad.origin) && /not an IP/.test(t)),
      text.join('\n'),
    );
    assert.ok(
      text.some((t) => t.includes(out.origin) && /port 70000 is out of range/.test(t)),
      text.join('\n'),
    );
  });

  it('emits nothing for a service whose providers are all invalid', () => {
    assert.deepEqual(convertService(spec(), 'istio-system', [provider(IFACE, 'host.example')]).entries, []);
  });

  it('lets the majority port win and warns about the others', () => {
    const { entries, issues } = convertService(spec(), 'istio-system', [
      provider(IFACE, '10.0.0.1', 20880),
      provider(IFACE, '10.0.0.2', 20881),
      provider(IFACE, '10.0.0.3', 20881),
    ]);
    const se = entries[0]!;
    assert.equal(se.spec.ports[0]!.number, 20881);
    // The minority provider keeps its own target port.
    assert.deepEqual(se.spec.endpoints[0]!.ports, { 'tcp-metaprotocol-dubbo': 20880 });
    assert.match(issues.map(formatIssue).join('\n'), /port 20880 differs from the majority port 20881/);
    // A tie goes to the lowest port.
    const tie = convertService(spec(), 'istio-system', [
      provider(IFACE, '10.0.0.1', 20890),
      provider(IFACE, '10.0.0.2', 20880),
    ]);
    assert.equal(tie.entries[0]!.spec.ports[0]!.number, 20880);
  });

  it('keeps one namespace per host: the majority, dropping the others with a warning', () => {
    const ns = (n: string) => ({ params: { aeraki_meta_app_namespace: n } });
    const { entries, issues } = convertService(spec(), 'istio-system', [
      provider(IFACE, '10.0.0.1', 20880, ns('a')),
      provider(IFACE, '10.0.0.2', 20880, ns('b')),
      provider(IFACE, '10.0.0.3', 20880, ns('b')),
    ]);
    assert.equal(entries[0]!.metadata.namespace, 'b');
    assert.deepEqual(
      entries[0]!.spec.endpoints.map((e) => e.address),
      ['10.0.0.2', '10.0.0.3'],
    );
    assert.match(issues.map(formatIssue).join('\n'), /namespace a differs from b/);
  });

  it('is independent of the providers order', () => {
    const ps = [
      provider(IFACE, '10.0.0.3', 20881),
      provider(IFACE, '10.0.0.1'),
      provider(IFACE, '10.0.0.2', 20881, { group: 'g' }),
    ];
    const a = convertService(spec(), 'istio-system', ps);
    const b = convertService(spec(), 'istio-system', [...ps].reverse());
    assert.deepEqual(a, b);
  });

  it('filters services by allow and deny globs (deny wins)', () => {
    const s = spec('zookeeper://zk?allow=org.apache.*,com.shop.?rder&deny=org.apache.*Internal*');
    assert.equal(isServiceAllowed(s, IFACE), true);
    assert.equal(isServiceAllowed(s, 'com.shop.Order'), true);
    assert.equal(isServiceAllowed(s, 'com.shop.Orders'), false);
    assert.equal(isServiceAllowed(s, 'org.apache.InternalService'), false);
    assert.equal(isServiceAllowed(spec(), 'anything.at.All'), true);
  });
});
