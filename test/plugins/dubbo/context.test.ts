// Context resolution of DubboAuthorizationPolicies: native Dubbo ports get the policies of the ServiceEntry's
// namespace and of the root namespace (D15), by namespace then name; other ports and namespaces get none.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sidecarContexts } from '../../../src/envoyfilter/context.ts';
import type { ConfigObject, ServiceEntry } from '../../../src/model/objects.ts';
import type { Generator } from '../../../src/model/generator.ts';
import type { Protocol } from '../../../src/model/protocol.ts';
import type { DubboContext } from '../../../src/plugins/dubbo/index.ts';
import { createGenerators } from '../../../src/plugins/registry.ts';
import { dubboAuthorizationPolicy, serviceEntry, storeOf } from '../../support/builders.ts';

const GENERATORS = new Map<Protocol, Generator>(
  createGenerators().flatMap((g) => g.protocols.map((p) => [p, g])),
);

function dubboService(ns: string): ServiceEntry {
  return serviceEntry(ns, 'svc', {
    hosts: [`svc.${ns}.svc.cluster.local`],
    ports: [
      { number: 20880, name: 'tcp-dubbo', protocol: 'TCP' },
      { number: 20881, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' },
      { number: 20882, name: 'tcp-dubbo-v2', protocol: 'TCP' },
    ],
    workloadSelector: { labels: { app: 'svc' } },
  });
}

const policy = (ns: string, name: string) => dubboAuthorizationPolicy(ns, name, {});

/** port number → `namespace/name` of the context's policies. */
function policiesByPort(
  objects: ConfigObject[],
  se: ServiceEntry,
  root = 'istio-system',
): Record<number, string[]> {
  const store = storeOf([...objects, se], root);
  const out: Record<number, string[]> = {};
  for (const ctx of sidecarContexts(store, se, se.spec.hosts[0] ?? '', GENERATORS)) {
    out[ctx.port.number] = ((ctx.extension as DubboContext) ?? []).map(
      (p) => `${p.metadata.namespace}/${p.metadata.name}`,
    );
  }
  return out;
}

describe('sidecar contexts: DubboAuthorizationPolicies', () => {
  const objects = [
    policy('rpc', 'b'),
    policy('rpc', 'a'),
    policy('istio-system', 'mesh'),
    policy('other', 'not-ours'),
  ];

  it("native Dubbo ports get their namespace's and the root namespace's policies; MetaProtocol ports none", () => {
    assert.deepEqual(policiesByPort(objects, dubboService('rpc')), {
      20880: ['istio-system/mesh', 'rpc/a', 'rpc/b'],
      20881: [],
      20882: ['istio-system/mesh', 'rpc/a', 'rpc/b'],
    });
  });

  it('a service of the root namespace gets its policies once; the root namespace is the configured one', () => {
    assert.deepEqual(policiesByPort(objects, dubboService('istio-system'))[20880], ['istio-system/mesh']);
    assert.deepEqual(policiesByPort(objects, dubboService('rpc'), 'other')[20880], [
      'other/not-ours',
      'rpc/a',
      'rpc/b',
    ]);
  });

  it('without policies the field is absent', () => {
    const store = storeOf([dubboService('empty')]);
    for (const ctx of sidecarContexts(
      store,
      dubboService('empty'),
      'svc.empty.svc.cluster.local',
      GENERATORS,
    )) {
      assert.equal('extension' in ctx, false);
    }
  });
});
