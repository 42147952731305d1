// The RDS routes an EnvoyFilter names (read where the MetaProtocol generator writes them) and the pairs not served.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { META_PROTOCOL_PROXY_TYPE } from '../../src/model/constants.ts';
import { rdsRouteNamesOf, unservedRoutes, type UnservedRoute } from '../../src/model/unserved-routes.ts';
import { createGenerators, createPluginKinds } from '../../src/plugins/registry.ts';
import { DUBBO_HOST, dubboEntry, fill, META_ROUTE, metaEntry, ROOT } from '../support/lkg-objects.ts';

describe('unserved routes', () => {
  it('reads the route of the MetaProtocol outbound filter the generator writes, and none of Dubbo', () => {
    const store = new ConfigStore({ rootNamespace: ROOT, kinds: createPluginKinds() });
    fill(store, [metaEntry, dubboEntry]);
    const out = generateAll(store, createGenerators(), { namespaceScope: false });
    const byName = new Map(out.objects.map((o) => [o.metadata.name, rdsRouteNamesOf(o.spec)]));
    const meta = [...byName].filter(([, routes]) => routes.length > 0);
    assert.deepEqual(meta, [
      [`aeraki-outbound-${META_ROUTE.replace(/_20880$/, '')}-240.240.0.1-20880`, [META_ROUTE]],
    ]);
    assert.ok(
      [...byName.keys()].some((n) => n.includes(DUBBO_HOST)),
      'a Dubbo filter exists, naming no RDS route',
    );
  });

  it('reads the proto field name and a typed config that is not a TypedStruct', () => {
    const spec = {
      configPatches: [
        {
          patch: {
            value: {
              typed_config: {
                type_url: META_PROTOCOL_PROXY_TYPE,
                value: { rds: { route_config_name: 'b_1' } },
              },
            },
          },
        },
        {
          patch: {
            value: { typed_config: { '@type': META_PROTOCOL_PROXY_TYPE, rds: { routeConfigName: 'a_1' } } },
          },
        },
        {
          patch: {
            value: { typed_config: { type_url: 'other', value: { rds: { routeConfigName: 'c_1' } } } },
          },
        },
      ],
    };
    assert.deepEqual(rdsRouteNamesOf(spec), ['a_1', 'b_1']);
    assert.deepEqual(rdsRouteNamesOf(null), []);
  });

  it('lists each (route, EnvoyFilter) not served, by route then EnvoyFilter', () => {
    const filters = new Map([
      ['ns/f2', ['b_1', 'a_1']],
      ['ns/f1', ['b_1']],
    ]);
    const expected: UnservedRoute[] = [
      { route: 'b_1', envoyFilter: 'ns/f1' },
      { route: 'b_1', envoyFilter: 'ns/f2' },
    ];
    assert.deepEqual(
      unservedRoutes(filters, (r) => r === 'a_1'),
      expected,
    );
  });
});
