// A registry ServiceEntry handed to the store typed (src/registry/typed-entry.ts) is the object parsing its wire
// form gives (model/parse/parse.ts), key order and freezing included, and is refused for the same errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfigObject } from '../../src/model/parse/parse.ts';
import { convertService } from '../../src/registry/convert.ts';
import { parseRegistrySpec } from '../../src/registry/spec.ts';
import { typedServiceEntry } from '../../src/registry/typed-entry.ts';
import type { RegistryServiceEntry } from '../../src/registry/types.ts';
import { provider } from '../fakes/registry/fake-watcher.ts';

const IFACE = 'org.apache.dubbo.samples.DemoService';

function entries(url: string, ...providers: ReturnType<typeof provider>[]): readonly RegistryServiceEntry[] {
  const spec = parseRegistrySpec(`zk=${url}`);
  if (!spec.ok) throw new Error('bad spec');
  return convertService(spec.value, 'istio-system', providers).entries;
}

describe('registry/typed-entry', () => {
  it('gives what parsing the wire form gives', () => {
    const cases = [
      ...entries(
        'zookeeper://zk:2181/dubbo',
        provider(IFACE, '10.0.0.2', 20880, { version: '1.0.0' }),
        provider(IFACE, '10.0.0.1', 20880, { version: '2.0.0', group: 'g1' }),
        provider(IFACE, 'fd00::1', 20881, { params: { aeraki_meta_workload_selector: 'demo' } }),
      ),
      ...entries('zookeeper://zk:2181/dubbo?namespace=shop', provider('a.B', '10.1.0.1', 1)),
    ];
    assert.ok(cases.length >= 2);
    for (const se of cases) {
      const parsed = parseConfigObject(se);
      const typed = typedServiceEntry(se);
      assert.ok(parsed?.ok && typed.ok);
      assert.deepStrictEqual(typed.value, parsed.value);
      assert.equal(JSON.stringify(typed.value), JSON.stringify(parsed.value));
      assert.deepEqual(typed.issues, parsed.issues);
      assert.ok(Object.isFrozen(typed.value.spec.ports[0]));
    }
  });

  it('refuses what the parser refuses', () => {
    const [se] = entries('zookeeper://zk:2181/dubbo', provider(IFACE, '10.0.0.1', 20880));
    const bad = { ...se!, spec: { ...se!.spec, hosts: [] } };
    const parsed = parseConfigObject(bad);
    const typed = typedServiceEntry(bad);
    assert.equal(typed.ok, false);
    assert.equal(parsed?.ok, false);
    assert.deepEqual(typed.issues, parsed.issues);
  });
});
