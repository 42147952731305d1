import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { configConflicts } from '../../src/model/conflicts/conflicts.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import type { GatewayContext, GatewayDraft, Generator, SidecarContext } from '../../src/model/generator.ts';
import type { ConfigObject, OutputObject } from '../../src/model/objects.ts';
import { compareByName, compareStrings } from '../../src/model/order.ts';
import {
  fail,
  formatIssue,
  issue,
  issueLine,
  ok,
  severityOf,
  type ConfigIssue,
} from '../../src/model/result.ts';
import { createProtocolNames } from '../../src/plugins/registry.ts';
import { destinationRule, gateway, metaRouter, serviceEntry, virtualService } from '../support/builders.ts';

/** A fake generator: one draft per port named `<prefix>-<host>-<port>`, recording its contexts. */
function fakeGenerator(
  name: string,
  protocols: Generator['protocols'],
): Generator & { seen: SidecarContext[]; gw: GatewayContext[] } {
  const seen: SidecarContext[] = [];
  const gw: GatewayContext[] = [];
  return {
    name,
    protocols,
    seen,
    gw,
    generateSidecar(ctx) {
      seen.push(ctx);
      const se = ctx.serviceEntry;
      if (se.metadata.annotations['fail'] === String(ctx.port.number)) {
        return fail([
          issue(
            { kind: 'ServiceEntry', namespace: se.metadata.namespace, name: se.metadata.name },
            `spec.ports[${ctx.portIndex}].name`,
            'boom',
          ),
        ]);
      }
      if (se.metadata.annotations['throw']) throw new Error('bug');
      const warn = se.metadata.annotations['warn']
        ? [
            issue(
              { kind: 'ServiceEntry', namespace: se.metadata.namespace, name: se.metadata.name },
              '',
              'dropped a part',
            ),
          ]
        : [];
      return ok(
        [{ name: `${name}-${se.spec.hosts[0]}-${ctx.port.number}`, spec: { configPatches: [] } }],
        warn,
      );
    },
    generateGateway(ctx) {
      gw.push(ctx);
      const d: GatewayDraft = {
        kind: 'EnvoyFilter',
        name: `gw-${ctx.gateway.metadata.name}-${ctx.server.port.number}`,
        namespace: ctx.gateway.metadata.namespace,
        spec: { configPatches: [] },
      };
      return ok([d]);
    },
  };
}

function storeOf(objects: ConfigObject[], rootNamespace = 'istio-system'): ConfigStore {
  const store = new ConfigStore({ rootNamespace });
  for (const o of objects) store.upsert(o);
  return store;
}

/** The errors among `issues`, formatted (the fake services here have no addresses, which only warns). */
const errors = (issues: readonly ConfigIssue[]): string[] =>
  issues.filter((i) => severityOf(i) === 'error').map(formatIssue);

const ids = (objects: readonly OutputObject[]): string[] =>
  objects.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);

describe('generateAll', () => {
  it('D4: every port goes to the generator of its own protocol, with contexts resolved through the view', () => {
    const meta = fakeGenerator('meta', ['metaprotocol']);
    const dubbo = fakeGenerator('dubbo', ['dubbo']);
    const se = serviceEntry('shop', 'mixed', {
      hosts: ['catalog'],
      ports: [
        { number: 80, name: 'http-web' },
        { number: 20880, name: 'tcp-dubbo' },
        { number: 9090, name: 'tcp-metaprotocol-thrift' },
      ],
    });
    const vs = virtualService('shop', 'vs', { hosts: ['catalog.shop.svc.cluster.local'] });
    const dr = destinationRule('shop', 'dr', { host: 'catalog' });
    const mr = metaRouter('shop', 'mr', { hosts: ['catalog'] });
    const out = generateAll(storeOf([se, vs, dr, mr]), [meta, dubbo], { namespaceScope: false });
    assert.deepEqual(ids(out.objects), [
      'istio-system/dubbo-catalog-20880',
      'istio-system/meta-catalog-9090',
    ]);
    assert.deepEqual(errors(out.issues), []);
    assert.equal(dubbo.seen.length, 1);
    assert.equal(dubbo.seen[0]!.portIndex, 1);
    assert.equal(meta.seen[0]!.portIndex, 2);
    assert.equal(meta.seen[0]!.protocol, 'metaprotocol');
    assert.equal(meta.seen[0]!.virtualService, vs);
    assert.equal(meta.seen[0]!.destinationRule, dr);
    assert.equal(meta.seen[0]!.metaRouter, mr);
    assert.equal(meta.seen[0]!.codecFor('dubbo'), 'aeraki.meta_protocol.codec.dubbo');
  });

  it('a failed port drops the whole ServiceEntry (failedSources); ok results with issues keep their output', () => {
    const g = fakeGenerator('meta', ['metaprotocol']);
    const ports = [
      { number: 1, name: 'tcp-metaprotocol-dubbo' },
      { number: 2, name: 'tcp-metaprotocol-dubbo' },
    ];
    const out = generateAll(
      storeOf([
        serviceEntry('a', 'broken', { hosts: ['b'], ports }, { annotations: { fail: '2' } }),
        serviceEntry(
          'a',
          'warned',
          { hosts: ['w'], ports: ports.slice(0, 1) },
          { annotations: { warn: 'y' } },
        ),
        serviceEntry(
          'a',
          'buggy',
          { hosts: ['x'], ports: ports.slice(0, 1) },
          { annotations: { throw: 'y' } },
        ),
        serviceEntry('a', 'nohosts', { ports }),
      ]),
      [g],
      { namespaceScope: false },
    );
    assert.deepEqual(ids(out.objects), ['istio-system/meta-w-1']);
    assert.deepEqual([...out.failedSources].sort(), [
      'ServiceEntry/a/broken',
      'ServiceEntry/a/buggy',
      'ServiceEntry/a/nohosts',
    ]);
    assert.deepEqual(errors(out.issues), [
      'ServiceEntry a/broken: spec.ports[1].name: boom',
      'ServiceEntry a/buggy: internal error in the meta generator: bug',
      'ServiceEntry a/nohosts: spec.hosts: no hosts: nothing is generated for this ServiceEntry',
      'ServiceEntry a/warned: dropped a part',
    ]);
  });

  it('warns once for a ServiceEntry without addresses whose ports are handled; the warning never fails it', () => {
    const dubbo = fakeGenerator('dubbo', ['dubbo']);
    const ports = [
      { number: 20880, name: 'tcp-dubbo' },
      { number: 20881, name: 'tcp-dubbo-admin' },
    ];
    const out = generateAll(
      storeOf([
        serviceEntry('a', 'bare', { hosts: ['bare'], ports }),
        serviceEntry('a', 'vip', { hosts: ['vip'], addresses: ['10.0.0.1'], ports }),
        serviceEntry('a', 'plain', { hosts: ['plain'], ports: [{ number: 80, name: 'http-web' }] }),
      ]),
      [dubbo],
      { namespaceScope: false },
    );
    assert.deepEqual(out.issues.map(issueLine), [
      'warning: ServiceEntry a/bare: spec.addresses: no spec.addresses, so no outbound listener ' +
        '<address>_<port> to match: only inbound filters are generated (for the workloads the ServiceEntry ' +
        'selects), and its clients send plain TCP',
    ]);
    assert.deepEqual(out.failedSources, new Set());
    assert.deepEqual(ids(out.objects), [
      'istio-system/dubbo-bare-20880',
      'istio-system/dubbo-bare-20881',
      'istio-system/dubbo-vip-20880',
      'istio-system/dubbo-vip-20881',
    ]);
  });

  it('lists the ports nothing handles (recognised protocols without a generator, tcp-<unknown>) apart from issues', () => {
    const dubbo = fakeGenerator('dubbo', ['dubbo']);
    const names = [
      'http-web',
      'grpc',
      'tcp',
      'TCP',
      'tcp-dubbo',
      'tcp-mongo',
      'tcp-MySQL',
      'tcp-redis',
      'tcp-web',
      'Tcp-',
      'mongo',
    ];
    const se = serviceEntry('db', 'many', {
      hosts: ['many'],
      addresses: ['10.0.0.2'],
      ports: names.map((name, i) => ({ number: 1000 + i, name })),
    });
    // The names the registry hands down: every plugin's (redis among them) and Aeraki's mongo and mysql.
    const protocolNames = createProtocolNames();
    const out = generateAll(storeOf([se]), [dubbo], { namespaceScope: false, protocolNames });
    assert.deepEqual(errors(out.issues), []);
    assert.deepEqual(
      out.unhandledPorts.map((p) => [p.protocol, issueLine(p.warning)]),
      [
        [
          'mongo',
          'warning: ServiceEntry db/many: spec.ports[5].name: port "tcp-mongo" names mongo, which is recognised but not handled: its traffic stays plain TCP',
        ],
        [
          'mysql',
          'warning: ServiceEntry db/many: spec.ports[6].name: port "tcp-MySQL" names mysql, which is recognised but not handled: its traffic stays plain TCP',
        ],
        [
          'redis',
          'warning: ServiceEntry db/many: spec.ports[7].name: port "tcp-redis" names redis, which is recognised but not handled: its traffic stays plain TCP',
        ],
        [
          'unknown',
          'warning: ServiceEntry db/many: spec.ports[8].name: port "tcp-web": "web" is not a known protocol (handled: dubbo): its traffic stays plain TCP',
        ],
        [
          'unknown',
          'warning: ServiceEntry db/many: spec.ports[9].name: port "Tcp-": "" is not a known protocol (handled: dubbo): its traffic stays plain TCP',
        ],
      ],
    );
    const all = generateAll(storeOf([se]), [dubbo, fakeGenerator('db', ['mongo', 'mysql', 'redis'])], {
      namespaceScope: false,
    });
    assert.deepEqual(
      all.unhandledPorts.map((p) => p.protocol),
      ['unknown', 'unknown'],
      'a protocol with a generator is handled',
    );
  });

  it('placement: exportTo (. and *, duplicates collapse), else root namespace or the SE namespace with namespaceScope', () => {
    const g = fakeGenerator('m', ['metaprotocol']);
    const port = [{ number: 1, name: 'tcp-metaprotocol-dubbo' }];
    const objects = [
      serviceEntry('svc-ns', 'exported', { hosts: ['e.example.com'], ports: port }),
      metaRouter('mr-ns', 'mr', {
        hosts: ['e.example.com'],
        exportTo: ['.', '*', 'apps', 'mr-ns', 'istio-system'],
      }),
      serviceEntry('svc-ns', 'plain', { hosts: ['p.example.com'], ports: port }),
    ];
    const out = generateAll(storeOf(objects), [g], { namespaceScope: false });
    assert.deepEqual(ids(out.objects), [
      'apps/m-e.example.com-1',
      'istio-system/m-e.example.com-1',
      'istio-system/m-p.example.com-1',
      'mr-ns/m-e.example.com-1',
    ]);
    const scoped = generateAll(storeOf(objects, 'mesh-root'), [g], { namespaceScope: true });
    assert.deepEqual(ids(scoped.objects), [
      'apps/m-e.example.com-1',
      'istio-system/m-e.example.com-1',
      'mesh-root/m-e.example.com-1',
      'mr-ns/m-e.example.com-1',
      'svc-ns/m-p.example.com-1',
    ]);
  });

  it('sanitises names (D7) and sets the owner label and the source annotation', () => {
    const g = fakeGenerator('m', ['metaprotocol']);
    const out = generateAll(
      storeOf([
        serviceEntry('ns', 'se', {
          hosts: ['*.Example.COM'],
          ports: [{ number: 1, name: 'tcp-metaprotocol-x' }],
        }),
      ]),
      [g],
      { namespaceScope: false },
    );
    assert.equal(out.objects.length, 1);
    assert.deepEqual(out.objects[0]!.metadata, {
      name: 'm.example.com-1',
      namespace: 'istio-system',
      labels: { manager: 'Aeraki' },
      annotations: { [SOURCE_ANNOTATION]: 'ServiceEntry/ns/se' },
    });
  });

  it('name collisions: the oldest source wins, the other gets an issue', () => {
    const g = fakeGenerator('m', ['metaprotocol']);
    const port = [{ number: 1, name: 'tcp-metaprotocol-dubbo' }];
    const out = generateAll(
      storeOf([
        serviceEntry(
          'a',
          'newer',
          { hosts: ['same.example.com'], ports: port },
          { creationTimestamp: '2025-01-01T00:00:00Z' },
        ),
        serviceEntry(
          'b',
          'older',
          { hosts: ['same.example.com'], ports: port },
          { creationTimestamp: '2024-01-01T00:00:00Z' },
        ),
      ]),
      [g],
      { namespaceScope: false },
    );
    assert.equal(out.objects.length, 1);
    assert.equal(out.objects[0]!.metadata.annotations?.[SOURCE_ANNOTATION], 'ServiceEntry/b/older');
    assert.deepEqual(errors(out.issues), [
      'ServiceEntry a/newer: EnvoyFilter istio-system/m-same.example.com-1 is already generated for ServiceEntry/b/older; this one is dropped',
    ]);
  });

  it('name collisions: same-source duplicates collapse when equal, claims resolve by age, kinds never collide', () => {
    // One draft per port named after the host only; its spec names the port unless the ServiceEntry says "same".
    const fixed: Generator = {
      name: 'fixed',
      protocols: ['metaprotocol'],
      generateSidecar(ctx) {
        const se = ctx.serviceEntry;
        const applyTo = se.metadata.annotations['same'] ? 'X' : `port-${ctx.port.number}`;
        return ok([
          {
            name: `f-${se.spec.hosts[0]}`,
            spec: { configPatches: [{ applyTo, match: {}, patch: { operation: 'MERGE', value: {} } }] },
          },
        ]);
      },
      generateGateway(ctx) {
        const at = { name: 'shared-name', namespace: ctx.gateway.metadata.namespace };
        return ok<GatewayDraft[]>([
          { kind: 'VirtualService', ...at, spec: {} },
          { kind: 'EnvoyFilter', ...at, spec: { configPatches: [] } },
        ]);
      },
    };
    const ports = [
      { number: 1, name: 'tcp-metaprotocol-dubbo' },
      { number: 2, name: 'tcp-metaprotocol-dubbo' },
    ];
    const at = (t: string) => ({ creationTimestamp: t });
    const out = generateAll(
      storeOf([
        serviceEntry(
          'ns',
          'equal',
          { hosts: ['eq.example.com'], ports },
          { ...at('2024-01-01T00:00:00Z'), annotations: { same: 'y' } },
        ),
        serviceEntry('ns', 'unequal', { hosts: ['ne.example.com'], ports }, at('2024-01-01T00:00:00Z')),
        serviceEntry(
          'c',
          'newest',
          { hosts: ['h.example.com'], ports: [ports[0]!] },
          at('2026-01-01T00:00:00Z'),
        ),
        serviceEntry(
          'a',
          'oldest',
          { hosts: ['h.example.com'], ports: [ports[0]!] },
          at('2024-01-01T00:00:00Z'),
        ),
        serviceEntry(
          'b',
          'middle',
          { hosts: ['h.example.com'], ports: [ports[0]!] },
          at('2025-01-01T00:00:00Z'),
        ),
        gateway('istio-system', 'gw', {
          servers: [{ port: { number: 9, name: 'tcp-metaprotocol-dubbo' }, hosts: ['*'] }],
        }),
        metaRouter('istio-system', 'mr', {
          hosts: ['g'],
          gateways: ['gw'],
          routes: [
            {
              route: [{ destination: { host: 'g', port: { number: 9 } } }],
              requestMutation: [],
              responseMutation: [],
            },
          ],
        }),
      ]),
      [fixed],
      { namespaceScope: false },
    );
    assert.deepEqual(
      out.objects.map(
        (o) =>
          `${o.kind} ${o.metadata.namespace}/${o.metadata.name} ${o.metadata.annotations?.[SOURCE_ANNOTATION]}`,
      ),
      [
        'EnvoyFilter istio-system/f-eq.example.com ServiceEntry/ns/equal',
        'EnvoyFilter istio-system/f-h.example.com ServiceEntry/a/oldest',
        'EnvoyFilter istio-system/f-ne.example.com ServiceEntry/ns/unequal',
        'EnvoyFilter istio-system/shared-name Gateway/istio-system/gw',
        'VirtualService istio-system/shared-name Gateway/istio-system/gw',
      ],
    );
    assert.deepEqual(errors(out.issues), [
      'ServiceEntry ns/unequal: EnvoyFilter istio-system/f-ne.example.com is already generated for another port of the same object; this one is dropped',
      'ServiceEntry b/middle: EnvoyFilter istio-system/f-h.example.com is already generated for ServiceEntry/a/oldest; this one is dropped',
      'ServiceEntry c/newest: EnvoyFilter istio-system/f-h.example.com is already generated for ServiceEntry/a/oldest; this one is dropped',
    ]);
  });

  it('gateway mode: MetaProtocol servers × bound MetaRouters that route to the server port', () => {
    const g = fakeGenerator('m', ['metaprotocol']);
    const gw = gateway('istio-system', 'ingress', {
      selector: { istio: 'ingressgateway' },
      servers: [
        { port: { number: 9090, name: 'tcp-metaprotocol-thrift' }, hosts: ['*'] },
        { port: { number: 80, name: 'http' }, hosts: ['*'] },
        { port: { number: 7070, name: 'tcp-metaprotocol-dubbo' }, hosts: ['*'] },
      ],
    });
    const route = (port: number) => [
      {
        route: [{ destination: { host: 'h', port: { number: port } } }],
        requestMutation: [],
        responseMutation: [],
      },
    ];
    const bound = metaRouter('apps', 'bound', {
      hosts: ['h'],
      gateways: ['istio-system/ingress'],
      routes: route(9090),
    });
    const unbound = metaRouter('apps', 'unbound', { hosts: ['h2'], routes: route(9090) });
    const out = generateAll(storeOf([gw, bound, unbound]), [g], { namespaceScope: false });
    assert.equal(g.gw.length, 1);
    assert.equal(g.gw[0]!.serverIndex, 0);
    assert.equal(g.gw[0]!.metaRouter, bound);
    assert.deepEqual(ids(out.objects), ['istio-system/gw-ingress-9090']);
    assert.deepEqual(out.objects[0]!.metadata.labels, { manager: 'Aeraki' });
    assert.equal(out.objects[0]!.metadata.annotations?.[SOURCE_ANNOTATION], 'Gateway/istio-system/ingress');
  });

  it('reports the conflicts of the pass apart, and takes them when given instead of computing them', () => {
    const g = fakeGenerator('m', ['metaprotocol']);
    const port = [{ number: 1, name: 'tcp-metaprotocol-dubbo' }];
    const host = 'a.example.com';
    const view = storeOf([
      serviceEntry('a', 'a', { hosts: [host], ports: port }),
      metaRouter('a', 'old', { hosts: [host] }, { creationTimestamp: '2020-01-01T00:00:00Z' }),
      metaRouter('a', 'young', { hosts: [host] }),
    ]);
    const conflicts = configConflicts(view);
    assert.ok(conflicts.length > 0);
    const computed = generateAll(view, [g], { namespaceScope: false });
    assert.deepEqual(computed.conflicts, conflicts);
    assert.deepEqual(generateAll(view, [g], { namespaceScope: false }, conflicts), computed);
    const none = generateAll(view, [g], { namespaceScope: false }, []);
    assert.deepEqual(none.conflicts, []);
    assert.deepEqual(
      none.issues,
      computed.issues.filter((i) => !conflicts.some((c) => c.message === i.message)),
    );
  });

  it('is deterministic: the output is sorted whatever the insertion order', () => {
    const g = fakeGenerator('m', ['metaprotocol']);
    const port = [{ number: 1, name: 'tcp-metaprotocol-dubbo' }];
    const ses = ['z', 'a', 'm'].map((n) => serviceEntry(n, n, { hosts: [`${n}.example.com`], ports: port }));
    const one = generateAll(storeOf(ses), [g], { namespaceScope: true });
    const two = generateAll(storeOf([...ses].reverse()), [g], { namespaceScope: true });
    assert.deepEqual(ids(one.objects), ['a/m-a.example.com-1', 'm/m-m.example.com-1', 'z/m-z.example.com-1']);
    assert.equal(JSON.stringify(one.objects), JSON.stringify(two.objects));
  });

  it('sorts and resolves claims whatever the hosts: many namespaces and ports, hosts unrelated to names, collisions', () => {
    // The sort starts from a layout that assumes hosts follow source names (see Collected); here they do not,
    // some collide across namespaces, and sources have one to three ports (one to three objects each).
    let seed = 3;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const ses = Array.from({ length: 300 }, (_, i) => {
      const ports = Array.from({ length: 1 + random(3) }, (__, p) => ({
        number: 100 + ((i + p * 7) % 5),
        name: 'tcp-metaprotocol-dubbo',
      }));
      const host = `h${random(400)}.example.com`;
      const day = String(1 + random(28)).padStart(2, '0');
      return serviceEntry(
        `ns-${random(7)}`,
        `se-${i}`,
        { hosts: [host], ports },
        {
          creationTimestamp: `2025-01-${day}T00:00:00Z`,
        },
      );
    });
    for (const namespaceScope of [false, true]) {
      const g = fakeGenerator('m', ['metaprotocol']);
      const out = generateAll(storeOf(ses), [g], { namespaceScope });
      // Expected, computed directly: claims in claim order (oldest, then namespace/name), the first one wins.
      const claimOrder = [...ses].sort(
        (a, b) =>
          Date.parse(a.metadata.creationTimestamp ?? '') - Date.parse(b.metadata.creationTimestamp ?? '') ||
          compareByName(a, b),
      );
      const winners = new Map<string, string>();
      let losers = 0;
      for (const se of claimOrder) {
        const seen = new Set<string>();
        for (const port of se.spec.ports) {
          const namespace = namespaceScope ? se.metadata.namespace : 'istio-system';
          const key = `${namespace}/m-${se.spec.hosts[0]}-${port.number}`;
          if (seen.has(key)) continue; // the same object twice from one source collapses
          seen.add(key);
          if (winners.has(key)) losers++;
          else winners.set(key, `ServiceEntry/${se.metadata.namespace}/${se.metadata.name}`);
        }
      }
      const expected = [...winners.keys()].sort((x, y) => {
        const [nx = '', ...rx] = x.split('/');
        const [ny = '', ...ry] = y.split('/');
        return compareStrings(nx, ny) || compareStrings(rx.join('/'), ry.join('/'));
      });
      assert.deepEqual(ids(out.objects), expected, `namespaceScope ${namespaceScope}`);
      for (const o of out.objects) {
        const key = `${o.metadata.namespace}/${o.metadata.name}`;
        assert.equal(o.metadata.annotations?.[SOURCE_ANNOTATION], winners.get(key), key);
      }
      assert.equal(
        errors(out.issues).length,
        losers,
        `namespaceScope ${namespaceScope}: one issue per dropped claim`,
      );
      assert.ok(losers > 20, `the case has collisions (${losers})`);
    }
  });
});
