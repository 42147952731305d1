// --registry NAME=URL parsing (src/registry/spec.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIssue } from '../../src/model/result.ts';
import { parseRegistrySpec, splitRegistryList } from '../../src/registry/spec.ts';

function parsed(text: string) {
  const r = parseRegistrySpec(text);
  assert.ok(r.ok, r.ok ? '' : r.issues.map(formatIssue).join('; '));
  return r.value;
}

function problems(text: string): string {
  const r = parseRegistrySpec(text);
  assert.equal(r.ok, false, `${text} should be rejected`);
  return r.issues.map(formatIssue).join('; ');
}

describe('parseRegistrySpec', () => {
  it('reads a ZooKeeper ensemble with its root node and defaults', () => {
    const s = parsed('zk=zookeeper://zk-0.zk:2181,zk-1.zk/dubbo');
    assert.deepEqual(s, {
      name: 'zk',
      type: 'zookeeper',
      servers: ['zk-0.zk:2181', 'zk-1.zk:2181'],
      root: '/dubbo',
      params: {},
      namespace: undefined,
      allow: [],
      deny: [],
      keepStaleWhenEmpty: false,
      debounceMs: 500,
    });
  });

  it('defaults the root of etcd to /dubbo and keeps a custom one', () => {
    assert.equal(parsed('e=etcd://etcd:2379').root, '/dubbo');
    assert.equal(parsed('e=etcd://etcd:2379/custom/root/').root, '/custom/root');
    assert.deepEqual(parsed('e=etcd://etcd').servers, ['etcd:2379']);
  });

  it('keeps Nacos parameters and reads the bridge options', () => {
    const s = parsed(
      'nacos=nacos://nacos:8848?namespace=prod&groups=DEFAULT_GROUP&targetNamespace=dubbo&allow=org.a.*,org.b.*&allow=x.Y&deny=org.a.Internal*&keepStaleWhenEmpty=true&debounce=2s',
    );
    assert.equal(s.type, 'nacos');
    assert.equal(s.root, '');
    assert.equal(s.params['namespace'], 'prod');
    assert.equal(s.params['groups'], 'DEFAULT_GROUP');
    assert.equal(s.namespace, 'dubbo');
    assert.deepEqual(s.allow, ['org.a.*', 'org.b.*', 'x.Y']);
    assert.deepEqual(s.deny, ['org.a.Internal*']);
    assert.equal(s.keepStaleWhenEmpty, true);
    assert.equal(s.debounceMs, 2000);
  });

  it('accepts IPv6 servers in brackets', () => {
    assert.deepEqual(parsed('zk=zookeeper://[::1]:2181').servers, ['[::1]:2181']);
  });

  it('names the registry and the bad part in every problem', () => {
    assert.match(problems('zookeeper://zk:2181'), /expected NAME=URL/);
    assert.match(problems('Bad_Name=zookeeper://zk:2181'), /name: "Bad_Name" is not a DNS-1123 label/);
    assert.match(problems('zk=consul://c:8500'), /Registry zk: url: unknown registry type "consul"/);
    assert.match(problems('zk=zookeeper://zk:99999'), /invalid server "zk:99999"/);
    assert.match(problems('zk=zookeeper:///dubbo'), /no server given/);
    assert.match(problems('zk=zookeeper://zk?debounce=6s'), /debounce: 6s is above 5s/);
    assert.match(problems('zk=zookeeper://zk?debounce=soon'), /invalid duration "soon"/);
    assert.match(problems('zk=zookeeper://zk?keepStaleWhenEmpty=yes'), /expected true or false/);
    assert.match(problems('zk=zookeeper://zk?targetNamespace=Not_Valid'), /not a valid namespace name/);
    assert.match(problems('zk=not a url'), /is not <type>:\/\/<servers>/);
  });
});

describe('splitRegistryList', () => {
  it('splits on commas that start a new NAME=<scheme>:// only', () => {
    assert.deepEqual(
      splitRegistryList('zk=zookeeper://a:2181,b:2181/dubbo?allow=x.*,y.*, etcd=etcd://e:2379,n=nacos://n'),
      ['zk=zookeeper://a:2181,b:2181/dubbo?allow=x.*,y.*', 'etcd=etcd://e:2379', 'n=nacos://n'],
    );
    assert.deepEqual(splitRegistryList(''), []);
  });
});
