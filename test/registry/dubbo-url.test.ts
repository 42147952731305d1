import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseInstanceRecord, parseProviderUrl } from '../../src/registry/dubbo-url.ts';
import { encodeNode, providerUrl } from '../support/dubbo-zookeeper.ts';

describe('parseProviderUrl', () => {
  const url = providerUrl({
    iface: 'org.demo.Greeter',
    ip: '10.0.0.5',
    port: 20880,
    version: '1.0.0',
    group: 'blue',
    extra: { aeraki_meta_locality: 'region1%2Fzone1', note: 'a+b' },
  });

  it('parses the URL-encoded node name and the decoded URL alike', () => {
    const fromNode = parseProviderUrl(encodeNode(url), '/dubbo/x');
    const fromUrl = parseProviderUrl(url, '/dubbo/x');
    assert.deepEqual(fromNode, fromUrl);
    assert.equal(fromNode?.service, 'org.demo.Greeter');
    assert.equal(fromNode?.level, 'interface');
    assert.equal(fromNode?.address, '10.0.0.5');
    assert.equal(fromNode?.port, 20880);
    assert.equal(fromNode?.version, '1.0.0');
    assert.equal(fromNode?.group, 'blue');
    assert.equal(fromNode?.origin, '/dubbo/x');
    assert.equal(fromNode?.params['aeraki_meta_locality'], 'region1/zone1', 'an escaped value is decoded');
    assert.equal(fromNode?.params['methods'], 'sayHello,sayGoodbye');
  });

  it('decodes + as a space in the node name (Java URLEncoder)', () => {
    const p = parseProviderUrl(encodeNode('dubbo://10.0.0.1:1/a.B?application=my app'), 'o');
    assert.equal(p?.params['application'], 'my app');
  });

  it('takes the interface parameter over the path, and accepts IPv6 and tri://', () => {
    const p = parseProviderUrl('tri://[fd00::5]:50051/some/path?interface=org.demo.V6', 'o');
    assert.equal(p?.service, 'org.demo.V6');
    assert.equal(p?.address, 'fd00::5');
    assert.equal(p?.port, 50051);
    assert.equal(p?.group, '');
    assert.equal(p?.version, '');
  });

  it('keeps an invalid address or port as registered (the conversion drops it)', () => {
    const p = parseProviderUrl('dubbo://not_an_ip:99999/org.demo.X', 'o');
    assert.equal(p?.address, 'not_an_ip');
    assert.equal(p?.port, 99999);
  });

  for (const bad of [
    'not-a-url',
    '%E0%A4%A', // a broken escape
    'dubbo://10.0.0.1/org.demo.NoPort',
    'dubbo://10.0.0.1:abc/org.demo.BadPort',
    'dubbo://10.0.0.1:20880/',
    'empty://10.0.0.1:20880/org.demo.X?category=providers',
    'consumer://10.0.0.1/org.demo.X?side=consumer',
    'dubbo://10.0.0.1:20880/org.demo.X?side=consumer',
  ]) {
    it(`rejects ${bad}`, () => assert.equal(parseProviderUrl(bad, 'o'), undefined));
  }
});

describe('parseInstanceRecord', () => {
  it('reads a Curator ServiceInstance (Dubbo 3 in ZooKeeper) with payload.metadata', () => {
    const json = JSON.stringify({
      name: 'shop',
      address: '10.9.0.1',
      port: 20880,
      payload: {
        metadata: { version: '2', 'dubbo.metadata.revision': 'abc', weight: 10, flag: true, nested: {} },
      },
    });
    const p = parseInstanceRecord('shop', json, '/services/shop/i1');
    assert.deepEqual(p, {
      service: 'shop',
      level: 'application',
      group: '',
      version: '2',
      address: '10.9.0.1',
      port: 20880,
      params: { version: '2', 'dubbo.metadata.revision': 'abc', weight: '10', flag: 'true' },
      origin: '/services/shop/i1',
    });
  });

  it('reads host/port/metadata records (etcd) and a port written as text', () => {
    const p = parseInstanceRecord('app', '{"host":"10.9.0.2","port":"8080","metadata":{"group":"g"}}', 'k');
    assert.equal(p?.address, '10.9.0.2');
    assert.equal(p?.port, 8080);
    assert.equal(p?.group, 'g');
  });

  for (const bad of [
    '{not json',
    '[]',
    'null',
    '{"address":"10.0.0.1"}',
    '{"port":1}',
    '{"address":"a","port":"x"}',
  ]) {
    it(`rejects ${bad}`, () => assert.equal(parseInstanceRecord('a', bad, 'o'), undefined));
  }
});
