// The debug page's files as the debug listener serves them (types, CSP, no inline code) and its pure view module
// (src/ops/debug-page/view.js, the browser's code, imported here as it is served).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { after, describe, it } from 'node:test';
import { AdminServer } from '../../src/ops/admin-server.ts';
import { debugPageFile } from '../../src/ops/debug-page.ts';
import { protocolsDocument } from '../../src/model/protocol-facts.ts';
import { configDocument } from '../../src/app/debug.ts';
import { trackChangeTimes } from '../../src/controller/change-times.ts';
import { fillStore, parseRawObjects } from '../../src/controller/file-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { createGenerators, createPluginKinds, createProtocolNames } from '../../src/plugins/registry.ts';
import { PARSE_OPTIONS } from '../support/kinds.ts';
import { silentLogger } from '../../src/util/logger.ts';

const PAGE_DIR = new URL('../../src/ops/debug-page/', import.meta.url);
// A browser module without type declarations: its exports are checked by behaviour below.
const view = await import(new URL('view.js', PAGE_DIR).href);
// /debug/protocols as the debug listener serves it.
const { detect: detectProtocol } = createProtocolNames();
const protocols = protocolsDocument(createGenerators(), createProtocolNames());

function call(port: number, path: string, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

const servers: AdminServer[] = [];
after(() => Promise.all(servers.map((s) => s.stop())));

async function serve(paths: 'debug' | 'ops'): Promise<number> {
  const server = new AdminServer({
    address: { host: '127.0.0.1', port: 0 },
    paths,
    debug: { config: () => ({ synced: true }) },
    logger: silentLogger,
  });
  servers.push(server);
  return (await server.start()).port;
}

describe('debug page: served by the debug listener', () => {
  it('serves the page and its files with their types and a strict CSP', async () => {
    const port = await serve('debug');
    const files: [string, string][] = [
      ['/debug/', 'text/html; charset=utf-8'],
      ['/debug/page.css', 'text/css; charset=utf-8'],
      ['/debug/page.js', 'text/javascript; charset=utf-8'],
      ['/debug/card.js', 'text/javascript; charset=utf-8'],
      ['/debug/dom.js', 'text/javascript; charset=utf-8'],
      ['/debug/view.js', 'text/javascript; charset=utf-8'],
      ['/debug/view-istiod.js', 'text/javascript; charset=utf-8'],
      ['/debug/view-state.js', 'text/javascript; charset=utf-8'],
      ['/debug/controls.js', 'text/javascript; charset=utf-8'],
    ];
    for (const [path, type] of files) {
      const res = await call(port, path);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers['content-type'], type, path);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /script-src 'self';/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    }
    const head = await call(port, '/debug/', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    // The documents keep their JSON, without the page's CSP.
    const doc = await call(port, '/debug/config');
    assert.deepEqual(JSON.parse(doc.body), { synced: true });
    assert.equal(doc.headers['content-security-policy'], undefined);
  });

  it('redirects /debug to /debug/ and knows no other file', async () => {
    const port = await serve('debug');
    const res = await call(port, '/debug');
    assert.equal(res.status, 308);
    assert.equal(res.headers['location'], '/debug/');
    for (const path of ['/debug/index.html', '/debug/nope.js', '/debug/../package.json', '/debug/page.js/']) {
      assert.equal((await call(port, path)).status, 404, path);
    }
    assert.equal((await call(port, '/debug/', 'POST')).status, 405);
  });

  it('redirects / to the page, as /debug', async () => {
    const port = await serve('debug');
    for (const method of ['GET', 'HEAD']) {
      const res = await call(port, '/', method);
      assert.equal(res.status, 308, method);
      assert.equal(res.headers['location'], '/debug/');
    }
  });

  it('is not on the ops listener', async () => {
    const port = await serve('ops');
    assert.equal((await call(port, '/debug/')).status, 404);
    assert.equal((await call(port, '/debug')).status, 404);
    assert.equal((await call(port, '/')).status, 404);
  });

  it('has no inline script, style or event handler (the CSP would block them)', () => {
    const html = readFileSync(new URL('index.html', PAGE_DIR), 'utf8');
    for (const m of html.matchAll(/<script\b[^>]*>/g)) assert.match(m[0], /\ssrc="[^":]+"/);
    assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=|https?:\/\//i);
    const scripts = readdirSync(PAGE_DIR).filter((f) => f.endsWith('.js'));
    assert.deepEqual(scripts.sort(), [
      'card.js',
      'controls.js',
      'dom.js',
      'page.js',
      'view-istiod.js',
      'view-state.js',
      'view.js',
    ]);
    for (const f of scripts) {
      const script = readFileSync(new URL(f, PAGE_DIR), 'utf8');
      assert.doesNotMatch(
        script,
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|https?:\/\//,
        f,
      );
      // Every module it imports is one the listener serves.
      for (const m of script.matchAll(/from '\.\/([^']+)'/g)) {
        assert.ok(debugPageFile(`/debug/${m[1]}`), `${f} imports ${m[1]}, which /debug/ does not serve`);
      }
    }
  });
});

describe('debug page: view model', () => {
  it('detects protocols as the controller does, from the names /debug/protocols serves', () => {
    const names = [
      'tcp-dubbo',
      'tcp-Thrift-x',
      'redis',
      'tcp',
      'http-web',
      'tcp-metaprotocol-trpc',
      'tcp-kafka-',
    ];
    for (const name of names) {
      const p = view.protocolOf(name, protocols.detected) as string | undefined;
      assert.equal(p?.split('-')[0], detectProtocol(name), name);
    }
    assert.equal(view.protocolOf('tcp-metaprotocol-thrift-hello', protocols.detected), 'metaprotocol-thrift');
    assert.equal(view.protocolOf('tcp-metaprotocol', protocols.detected), 'metaprotocol');
    // The script holds no list of its own: without the document, no port selects a protocol.
    assert.equal(view.protocolOf('tcp-dubbo', undefined), undefined);
    const dubbo = {
      metadata: { namespace: 'shop', name: 'd' },
      spec: { hosts: ['d.shop'], ports: [{ number: 1, name: 'tcp-dubbo' }] },
    };
    const config = { objects: { ServiceEntry: [dubbo] } };
    assert.equal(view.buildView({ config }).groups.length, 0);
    assert.deepEqual(
      view.buildView({ config, protocols }).groups.map((g: { protocol: string }) => g.protocol),
      ['dubbo'],
    );
  });

  it('draws splits in percent of the total weight', () => {
    const d = (subset: string, weight?: number) => ({ destination: { host: 'h', subset }, weight });
    assert.deepEqual(
      view.splitOf([d('v1', 80), d('v2', 20)]).map((s: { percent: number }) => s.percent),
      [80, 20],
    );
    assert.deepEqual(
      view.splitOf([d('v1', 1), d('v2', 2)]).map((s: { percent: number }) => s.percent),
      [33.3, 66.7],
    );
    assert.deepEqual(view.splitOf([d('v1')]), [{ label: 'h (v1)', weight: 1, percent: 100 }]);
    assert.deepEqual(
      view.splitOf([d('v1', 10), d('v2')]).map((s: { percent: number }) => s.percent),
      [100, 0],
    );
    assert.deepEqual(view.splitOf(undefined), []);
  });

  it('builds services by protocol with their filters, routes, proxies and what holds them', () => {
    const se = (ns: string, name: string, host: string, port: string) => ({
      kind: 'ServiceEntry',
      metadata: { namespace: ns, name },
      spec: { hosts: [host], ports: [{ number: 20880, name: port }] },
    });
    const holder = { kind: 'VirtualService', namespace: 'shop', name: 'vs' };
    // A rejected object holds the host for the ServiceEntries of its own namespace only.
    const elsewhere = { kind: 'DestinationRule', namespace: 'other', name: 'dr' };
    const HELD =
      'ServiceEntry shop/orders: spec.hosts: held: VirtualService shop/vs is invalid: not rendered';
    const v = view.buildView({
      protocols,
      config: {
        synced: true,
        objects: {
          ServiceEntry: [
            se('shop', 'orders', 'orders.shop', 'tcp-metaprotocol-dubbo'),
            se('shop', 'web', 'web.shop', 'http'),
            se('a', 'pay', 'pay.a', 'tcp-dubbo'),
          ],
          MetaRouter: [
            { metadata: { namespace: 'shop', name: 'ok' }, spec: { hosts: ['pay.a'], routes: [] } },
          ],
        },
        rejected: [{ ref: holder, issues: ['VirtualService shop/vs: spec.http: bad'] }],
        held: [{ host: 'orders.shop', by: [elsewhere, holder] }],
        heldObjects: [HELD],
        someFieldFromLater: { ignored: true },
      },
      envoyfilters: {
        issues: [HELD, 'ServiceEntry a/pay: spec.ports[0]: a warning'],
        desired: [
          {
            metadata: {
              namespace: 'root',
              name: 'aeraki-inbound-x',
              annotations: { 'aeraki.io/source': 'ServiceEntry/a/pay' },
            },
            spec: { configPatches: [{ match: { listener: { name: 'virtualInbound' } } }] },
          },
        ],
      },
      proxies: {
        proxies: [
          {
            nodeId: 'p1',
            routes: [{ name: 'pay.a_20880', state: 'rejected', rejected: { errorDetail: 'no' } }],
          },
        ],
        routes: [{ name: 'pay.a_20880', subscribed: 1, acked: 0, pending: 0, rejected: 1 }],
        istiod: [{ unknown: 'ignored' }],
      },
    });
    assert.equal(v.synced, true);
    assert.deepEqual(
      v.groups.map((g: { protocol: string; services: { id: string }[] }) => [
        g.protocol,
        g.services.map((s) => s.id),
      ]),
      [
        ['dubbo', ['a/pay']],
        ['metaprotocol-dubbo', ['shop/orders']],
      ],
    );
    const [pay] = v.groups[0].services;
    assert.deepEqual(pay.envoyFilters, [
      { name: 'aeraki-inbound-x', namespace: 'root', direction: 'inbound' },
    ]);
    assert.deepEqual(
      pay.routers.map((r: { ref: string }) => r.ref),
      ['MetaRouter shop/ok'],
    );
    assert.deepEqual(pay.proxies, [{ proxy: 'p1', route: 'pay.a_20880', state: 'rejected', detail: 'no' }]);
    assert.equal(pay.rejectedByProxies, true);
    const [orders] = v.groups[1].services;
    assert.deepEqual(orders.held, [
      { by: 'VirtualService shop/vs', issues: ['VirtualService shop/vs: spec.http: bad'] },
    ]);
    assert.deepEqual(
      v.problems.map((p: { kind: string; subject: string }) => `${p.kind} ${p.subject}`),
      [
        'rejected VirtualService shop/vs',
        'held ServiceEntry shop/orders',
        'issue ServiceEntry a/pay',
        'proxy route pay.a_20880: rejected by 1 proxy',
      ],
    );
    assert.equal(v.registries, undefined);
  });

  it("shows istiod's listener rejections on the service of their source object and among the problems", () => {
    const se = (ns: string, name: string, kind = 'ServiceEntry') => ({
      kind,
      metadata: { namespace: ns, name },
      spec: { hosts: [`${name}.${ns}`], ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }] },
    });
    const LACKS = "Didn't find a registered implementation for 'envoy.filters.network.meta_protocol_proxy'";
    const v = view.buildView({
      protocols,
      config: {
        objects: {
          ServiceEntry: [se('shop', 'orders'), se('shop', 'pay')],
          Service: [se('web', 'orders', 'Service')],
        },
      },
      proxies: {
        proxies: [],
        routes: [],
        listenerRejections: {
          state: 'answering',
          answeredAt: '2026-12-05T00:00:00.000Z',
          proxiesReported: 3,
          sources: [
            {
              source: 'ServiceEntry/shop/orders',
              reason: 'ProxyLacksExtension',
              proxies: 1,
              namespaces: ['web'],
              firstProxy: 'web-1.web',
              firstError: LACKS,
              filter: 'envoy.filters.network.meta_protocol_proxy',
            },
            {
              source: 'ServiceEntry/shop/orders',
              reason: 'ProxyRejected',
              proxies: 2,
              namespaces: ['a', 'b'],
              firstProxy: 'x-1.a',
              firstError: 'Error adding/updating listener(s) 10.0.0.1_20880: bad',
            },
          ],
          proxies: [
            {
              id: 'web-1.web',
              namespace: 'web',
              reason: 'ProxyLacksExtension',
              listeners: [],
              filter: 'envoy.filters.network.meta_protocol_proxy',
              errorDetail: LACKS,
              sources: ['ServiceEntry/shop/orders'],
            },
            {
              id: 'x-1.a',
              namespace: 'a',
              reason: 'ProxyRejected',
              listeners: ['10.0.0.1_20880'],
              errorDetail: 'Error adding/updating listener(s) 10.0.0.1_20880: bad',
              sources: ['ServiceEntry/other/thing', 'ServiceEntry/shop/orders'],
            },
          ],
        },
      },
    });
    const services = v.groups[0].services as {
      id: string;
      key: string;
      listenerRejections: { reason: string; word: string; proxies: number }[];
      listenerProxies: { id: string; word: string; listeners: string[]; detail: string }[];
    }[];
    const byKey = new Map(services.map((s) => [s.key, s]));
    const orders = byKey.get('ServiceEntry shop/orders')!;
    assert.deepEqual(
      orders.listenerRejections.map((r) => [r.reason, r.word, r.proxies]),
      [
        ['ProxyLacksExtension', 'lacks extension', 1],
        ['ProxyRejected', 'rejected', 2],
      ],
    );
    assert.deepEqual(
      orders.listenerProxies.map((p) => [p.id, p.word, p.listeners]),
      [
        ['web-1.web', 'lacks extension', []],
        ['x-1.a', 'rejected', ['10.0.0.1_20880']],
      ],
    );
    // The same name in another kind or namespace is another source object.
    assert.deepEqual(byKey.get('Service web/orders')!.listenerRejections, []);
    assert.deepEqual(byKey.get('ServiceEntry shop/pay')!.listenerProxies, []);
    assert.deepEqual(
      v.problems.map((p: { kind: string; subject: string; lines: string[] }) => [p.kind, p.subject, p.lines]),
      [
        [
          'listener',
          'ServiceEntry/shop/orders: lacks extension by 1 proxy in namespace web (istiod)',
          ['no implementation of envoy.filters.network.meta_protocol_proxy', `first: web-1.web: ${LACKS}`],
        ],
        [
          'listener',
          'ServiceEntry/shop/orders: rejected by 2 proxies in namespaces a, b (istiod)',
          ['first: x-1.a: Error adding/updating listener(s) 10.0.0.1_20880: bad'],
        ],
      ],
    );
    assert.deepEqual(v.istiod, {
      state: 'answering',
      text: "istiod's view of listeners (istio.io/debug/syncz): answering, last answer at 2026-12-05T00:00:00.000Z, 3 proxies reported",
    });
  });

  it("says when istiod's view is not available", () => {
    const istiod = (listenerRejections?: object) =>
      view.buildView({ proxies: { proxies: [], routes: [], listenerRejections } }).istiod as {
        state: string;
        text: string;
      };
    const empty = { sources: [], proxies: [], proxiesReported: 0 };
    assert.equal(istiod().state, 'off');
    assert.match(istiod().text, /not asked \(needs --output kube/);
    assert.match(
      istiod({ ...empty, state: 'refused' }).text,
      /not available, istiod refuses istio\.io\/debug\/syncz, no answer yet$/,
    );
    assert.match(
      istiod({ ...empty, state: 'unreachable', answeredAt: '2026-12-05T00:00:00.000Z' }).text,
      /not available, istiod cannot be reached, last answer at 2026-12-05T00:00:00\.000Z$/,
    );
    assert.match(istiod({ ...empty, state: 'idle' }).text, /not asked yet, no answer yet$/);
    assert.match(
      istiod({ ...empty, state: 'answering', proxiesReported: 1 }).text,
      /answering, no answer yet, 1 proxy reported$/,
    );
  });

  it('renders nothing from missing documents without failing', () => {
    const v = view.buildView({});
    assert.deepEqual(
      { ...v, istiod: undefined },
      {
        synced: false,
        groups: [],
        problems: [],
        warnings: [],
        lastGood: [],
        istiod: undefined,
        registries: undefined,
      },
    );
    assert.equal(v.istiod.state, 'off');
  });
});

// What issue 41 asked the page to show: kept filters as kept, "last good config in use", routes proxies ask for
// that are not served (NOT SENT), every plugin kind's settings (as the plugins describe them, from a real
// /debug/config), per-object change times, warnings apart without repeating the object, and the filter box.
describe('debug page: view model of what stands in and what the plugins set', () => {
  const se = (ns: string, name: string, port: string) => ({
    kind: 'ServiceEntry',
    metadata: { namespace: ns, name },
    spec: { hosts: [`${name}.${ns}.svc.cluster.local`], ports: [{ number: 6379, name: port }] },
  });

  it('shows the kept EnvoyFilters of a held service as kept, and says the last good config is in use', () => {
    const svc = se('shop', 'svc', 'tcp-metaprotocol-dubbo');
    const v = view.buildView({
      protocols,
      config: {
        synced: true,
        objects: { ServiceEntry: [svc], VirtualService: [{ metadata: { namespace: 'shop', name: 'ok' } }] },
        rejected: [
          {
            ref: { kind: 'DestinationRule', namespace: 'shop', name: 'dr' },
            issues: ['DestinationRule shop/dr: x'],
          },
          {
            ref: { kind: 'VirtualService', namespace: 'shop', name: 'ok' },
            issues: ['VirtualService shop/ok: y'],
          },
        ],
        held: [
          {
            host: 'svc.shop.svc.cluster.local',
            by: [{ kind: 'DestinationRule', namespace: 'shop', name: 'dr' }],
          },
        ],
        files: { partial: false, errors: [{ path: 'a.yaml', message: 'bad', lastGood: true }] },
      },
      envoyfilters: {
        desired: [],
        keptFilters: [
          {
            namespace: 'istio-system',
            name: 'aeraki-inbound-svc-20880',
            source: 'ServiceEntry/shop/svc',
            why: 'held',
          },
          {
            namespace: 'istio-system',
            name: 'aeraki-outbound-svc-20880',
            source: 'ServiceEntry/shop/svc',
            why: 'held',
          },
        ],
      },
    });
    const [card] = v.groups[0].services;
    assert.deepEqual(
      card.envoyFilters.map((f: { name: string; kept?: boolean; direction: string }) => [
        f.name,
        f.direction,
        f.kept,
      ]),
      [
        ['aeraki-inbound-svc-20880', 'inbound', true],
        ['aeraki-outbound-svc-20880', 'outbound', true],
      ],
    );
    assert.deepEqual(v.lastGood, [
      '1 file cannot be read: the last good read is in effect',
      '1 invalid object: the last valid version is in effect',
      '2 EnvoyFilters kept from before',
    ]);
    const problems = v.problems as { kind: string; subject: string; lines: string[] }[];
    assert.deepEqual(problems.find((p) => p.subject === 'VirtualService shop/ok')?.lines, [
      'y',
      'its last valid version is in effect',
    ]);
    assert.deepEqual(problems.find((p) => p.kind === 'file')?.lines, [
      'bad',
      'its last good read is in effect',
    ]);
    assert.deepEqual(view.buildView({ config: { synced: true } }).lastGood, []);
  });

  it('lists the routes proxies ask for that are not served: on the service and among the problems', () => {
    const svc = se('shop', 'svc', 'tcp-metaprotocol-dubbo');
    const v = view.buildView({
      protocols,
      config: { objects: { ServiceEntry: [svc] } },
      proxies: {
        proxies: [
          { nodeId: 'p1', routes: [], notSent: ['svc.shop.svc.cluster.local_6379', 'nowhere_1'] },
          { nodeId: 'p2', routes: [], notSent: ['nowhere_1'] },
        ],
        routes: [],
      },
    });
    assert.deepEqual(v.groups[0].services[0].proxies, [
      { proxy: 'p1', route: 'svc.shop.svc.cluster.local_6379', state: 'not sent' },
    ]);
    assert.deepEqual(
      (v.problems as { kind: string; subject: string }[]).map((p) => `${p.kind} ${p.subject}`),
      [
        'notsent route nowhere_1: not sent to 2 proxies asking for it',
        'notsent route svc.shop.svc.cluster.local_6379: not sent to 1 proxy asking for it',
      ],
    );
  });

  it("shows every plugin kind's settings on the services they apply to, from the plugins' descriptions", () => {
    const store = new ConfigStore({
      rootNamespace: 'istio-system',
      kinds: createPluginKinds(),
      now: () => 1e12,
    });
    const times = trackChangeTimes(store);
    const raws = [
      se('cache', 'redis', 'tcp-redis'),
      se('rpc', 'hello', 'tcp-dubbo'),
      se('web', 'hello', 'tcp-dubbo'),
      {
        apiVersion: 'redis.aeraki.io/v1alpha1',
        kind: 'RedisService',
        metadata: { namespace: 'cache', name: 'rs' },
        spec: {
          host: ['redis.cache.svc.cluster.local'],
          redis: [
            { route: { host: 'redis.cache.svc.cluster.local' }, mirror: [{ route: { host: 'shadow' } }] },
          ],
        },
      },
      {
        apiVersion: 'redis.aeraki.io/v1alpha1',
        kind: 'RedisDestination',
        metadata: { namespace: 'cache', name: 'rd' },
        spec: {
          host: 'redis.cache.svc.cluster.local',
          trafficPolicy: { connectionPool: { redis: { auth: { plain: { password: 'hunter2' } } } } },
        },
      },
      {
        apiVersion: 'dubbo.aeraki.io/v1alpha1',
        kind: 'DubboAuthorizationPolicy',
        metadata: { namespace: 'rpc', name: 'deny' },
        spec: { action: 'DENY' },
      },
    ].map((o) => ({ apiVersion: 'networking.istio.io/v1', ...o }));
    fillStore(store, parseRawObjects(raws, 'istio-system', [], PARSE_OPTIONS));
    const config = configDocument(store, true, undefined, times);
    assert.ok(!JSON.stringify(config).includes('hunter2'));
    const v = view.buildView({ protocols, config });
    const byId = new Map(
      v.groups
        .flatMap((g: { services: { id: string }[] }) => g.services)
        .map((s: { id: string }) => [s.id, s]),
    );
    const text = (id: string) =>
      (
        byId.get(id) as { settings: { ref: string; lines: { label: string; value: string }[] }[] }
      ).settings.map((o) => [o.ref, o.lines.map((l) => `${l.label}: ${l.value}`)]);
    assert.deepEqual(text('cache/redis'), [
      [
        'RedisService cache/rs',
        [
          'route: every other key → redis.cache.svc.cluster.local',
          'mirror: 100% of every other key to shadow',
        ],
      ],
      ['RedisDestination cache/rd', ['mode: PROXY', 'auth: written in the object (not shown)']],
    ]);
    assert.deepEqual(text('rpc/hello'), [
      ['DubboAuthorizationPolicy rpc/deny', ['action: DENY', 'rules: none']],
    ]);
    assert.deepEqual(text('web/hello'), [], 'a policy applies to its own namespace');
    const redis = byId.get('cache/redis') as { changedAt: string; settings: { changedAt: string }[] };
    assert.equal(redis.changedAt, new Date(1e12).toISOString());
    assert.equal(redis.settings[0]!.changedAt, new Date(1e12).toISOString());
    // The page's code names no plugin kind.
    for (const f of readdirSync(PAGE_DIR)) {
      assert.doesNotMatch(
        readFileSync(new URL(f, PAGE_DIR), 'utf8'),
        /Redis|Dubbo(?!\w*Protocol)|dubbo\./,
        f,
      );
    }
  });

  it('lists warnings apart, each object once with what it says, and on its service', () => {
    const v = view.buildView({
      protocols,
      config: {
        objects: { ServiceEntry: [se('shop', 'svc', 'tcp-redis')] },
        heldObjects: ['Gateway a/g: spec.servers: held: x'],
      },
      envoyfilters: {
        issueList: [
          { severity: 'warning', object: 'ServiceEntry shop/svc', text: 'spec.ports[0]: odd' },
          { severity: 'error', object: 'MetaRouter shop/mr', text: 'spec.routes: bad' },
          { severity: 'warning', object: 'Gateway a/g', text: 'spec.servers: held: x' },
        ],
      },
    });
    assert.deepEqual(v.warnings, [
      { kind: 'warning', subject: 'ServiceEntry shop/svc', lines: ['spec.ports[0]: odd'] },
    ]);
    assert.deepEqual(v.groups[0].services[0].warnings, ['spec.ports[0]: odd']);
    assert.deepEqual(
      (v.problems as { kind: string; subject: string; lines: string[] }[]).map((p) => [
        p.kind,
        p.subject,
        p.lines,
      ]),
      [
        ['held', 'Gateway a/g', ['spec.servers: held: x']],
        ['issue', 'MetaRouter shop/mr', ['spec.routes: bad']],
      ],
    );
  });

  it('filters by every word of the box, and offers refresh off by default', async () => {
    const state = await import(new URL('view-state.js', PAGE_DIR).href);
    assert.equal(state.matchesFilter('ServiceEntry shop/redis tcp-redis', ''), true);
    assert.equal(state.matchesFilter('ServiceEntry shop/redis tcp-redis', 'SHOP redis'), true);
    assert.equal(state.matchesFilter('ServiceEntry shop/redis tcp-redis', 'shop dubbo'), false);
    assert.equal(state.refreshOf(null), 0);
    assert.equal(state.refreshOf('15'), 15);
    assert.equal(state.refreshOf('7'), 0, 'only the intervals offered');
  });
});
