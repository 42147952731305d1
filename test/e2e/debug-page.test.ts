// The debug page in a real browser: `aeraki serve` in process on examples/ as `npm start` runs it (directory source
// and output, development certificates, the debug listener), plus a held ServiceEntry, an object whose rejection
// quotes markup, a registry and two MetaProtocol proxies (one acknowledging, one rejecting). Debian's chromium,
// headless, loads /debug/; the test reads the DOM after the script ran, measures the layout at a phone's and a wide
// screen's width and takes screenshots at both. A second serve (`--output kube`, proxy status on, the fake istiod
// answering istio.io/debug/syncz) shows istiod's listener rejections on the service they belong to.
import assert from 'node:assert/strict';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { parseRegistrySpec } from '../../src/registry/spec.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import type { ProxiesDocument } from '../../src/tools/proxies-document.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { se } from '../fakes/istiod/harness.ts';
import { FakeIstiod } from '../fakes/istiod/server.ts';
import { proxyId } from '../fakes/istiod/syncz.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { ackOf, RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { testCa } from '../fakes/test-ca.ts';
import { FakeRegistryWatcher, provider } from '../fakes/registry/fake-watcher.ts';
import { chromiumRun, evaluateAt, findChromium } from '../support/chromium.ts';
import { destinationRuleRaw, metaEntry, metaRouterRaw } from '../support/lkg-objects.ts';
import { serveOptions } from './options.ts';
import { httpGet, repoRoot, waitFor } from './support.ts';

const chromium = findChromium();
// Without chromium the test is skipped, except in CI (CI=true), where it fails: .ci/run installs chromium.
const skip =
  chromium || process.env['CI'] === 'true'
    ? false
    : 'chromium is not on PATH (apt-get install chromium): the debug page is not tested';

const examples = path.join(repoRoot, 'examples');
const DEMO = 'org.apache.dubbo.samples.basic.api.demoservice_20880';
/** Routes no object makes (the first one named after a Redis service, which gets none over RDS), and the proxy. */
const UNSERVED = 'redis-client.redis.svc.cluster.local_6379';
const NOWHERE = 'nowhere.shop.svc.cluster.local_1';
const ASKING = 'sidecar~10.0.0.3~asking-0.shop~shop.svc.cluster.local';
/** The object of a file that is read well once, then broken: its last good read stays in effect. */
const LATE = {
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { namespace: 'shop', name: 'late' },
  spec: { hosts: ['late.shop.svc.cluster.local'], ports: [{ number: 80, name: 'http', protocol: 'HTTP' }] },
};

/** The services of examples/ that have a handled port, as `namespace/name`, with the protocol group of each. */
const EXAMPLE_SERVICES: [string, string][] = [
  ['dubbo/dubbo-secondservice', 'dubbo'],
  ['kafka/kafka', 'kafka'],
  ['kafka/zookeeper', 'zookeeper'],
  ['meta-dubbo/dubbo-demoservice', 'metaprotocol-dubbo'],
  ['meta-thrift/thrift-sample-server', 'metaprotocol-thrift'],
  ['meta-trpc/trpc-echo', 'metaprotocol-trpc'],
  ['redis/redis-client', 'redis'],
];

/** The weighted route of examples/'s MetaRouter, with each destination's share in percent. */
function exampleSplit(): { router: string; route: string; percents: number[] } {
  for (const file of readdirSync(examples).filter((f) => f.endsWith('.yaml'))) {
    for (const doc of parseAllDocuments(readFileSync(path.join(examples, file), 'utf8'))) {
      const o = doc.toJS() as { kind?: string; metadata?: { namespace: string; name: string }; spec?: any };
      if (o?.kind !== 'MetaRouter') continue;
      for (const r of o.spec.routes as { name: string; route: { weight?: number }[] }[]) {
        if (!r.route.some((d) => d.weight !== undefined)) continue;
        const total = r.route.reduce((a, d) => a + (d.weight ?? 0), 0);
        const percents = r.route.map((d) => Math.round(((d.weight ?? 0) / total) * 1000) / 10);
        return { router: `${o.metadata!.namespace}/${o.metadata!.name}`, route: r.name, percents };
      }
    }
  }
  throw new Error('examples/ has no MetaRouter with a weighted route');
}

/** The element (opening tag to its matching closing tag) whose opening tag carries `attr`. */
function element(html: string, tag: string, attr: string): string {
  const at = html.indexOf(attr);
  assert.ok(at >= 0, `no element with ${attr}`);
  const open = html.lastIndexOf(`<${tag} `, at);
  const tags = new RegExp(`<${tag}[ >]|</${tag}>`, 'g');
  tags.lastIndex = open;
  let depth = 0;
  for (let m = tags.exec(html); m; m = tags.exec(html)) {
    depth += m[0].startsWith('</') ? -1 : 1;
    if (depth === 0) return html.slice(open, m.index + m[0].length);
  }
  throw new Error(`unclosed <${tag}> with ${attr}`);
}

/** Width and height of a PNG file (after checking its signature). */
function pngSize(file: string): { width: number; height: number } {
  const b = readFileSync(file);
  assert.ok(b.length > 1000, `${file}: ${b.length} bytes`);
  assert.deepEqual([...b.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(b.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe('debug page in headless chromium', { skip }, () => {
  const root = mkdtempSync(path.join(tmpdir(), 'aeraki-debug-page-'));
  const configDir = path.join(root, 'config');
  let running: RunningServe;
  let rds: RdsTestClient;
  let url = '';

  const browse = (...args: string[]) => chromiumRun(chromium!, root, url, args);

  before(async () => {
    assert.ok(chromium, 'chromium is not on PATH (.ci/run installs it with apt-get)');
    mkdirSync(configDir);
    for (const f of readdirSync(examples).filter((f) => f.endsWith('.yaml'))) {
      copyFileSync(path.join(examples, f), path.join(configDir, f));
    }
    // Held: a MetaProtocol ServiceEntry whose DestinationRule (same namespace) is invalid with no valid version
    // known; its MetaRouter, invalid too, holds nothing. Rejected: a MetaRouter whose issue quotes markup, which the
    // page must show as text.
    const evil = {
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'MetaRouter',
      metadata: { namespace: 'shop', name: 'evil' },
      spec: { hosts: ['<img src=x>.shop.svc.cluster.local'], routes: [] },
    };
    // First without the DestinationRule, so that shop/svc's EnvoyFilters are written; then the invalid one holds
    // the service (its EnvoyFilters are kept, its route withheld), and a file read well before breaks.
    const heldFile = (objects: object[]) =>
      writeFileSync(path.join(configDir, 'held.yaml'), objects.map((o) => stringify(o)).join('---\n'));
    heldFile([metaEntry, metaRouterRaw(false), evil]);
    writeFileSync(path.join(configDir, 'late.yaml'), stringify(LATE));
    const spec = parseRegistrySpec('zk=zookeeper://127.0.0.1:2181/dubbo');
    assert.ok(spec.ok);
    let watcher: FakeRegistryWatcher | undefined;
    running = await startServe(
      serveOptions({
        configSource: 'dir',
        configDir,
        output: 'dir',
        outputDir: path.join(root, 'out'),
        devCertsDir: path.join(root, 'certs'),
        certProvider: 'dev',
        leaderElect: false,
        namespaceBootstrap: false,
        debugEndpoints: true,
        registries: [spec.value],
        registryOutput: 'mcp',
        mcpServerInsecure: true,
      }),
      { logger: silentLogger, registryWatcher: (s) => (watcher = new FakeRegistryWatcher(s.name)) },
    );
    const iface = 'org.apache.dubbo.samples.RegistryService';
    watcher!.set(iface, [provider(iface, '10.0.0.9', 20880)], true);
    watcher!.sync();
    await running.synced;
    await running.reconciler.runNow();
    url = `http://${running.debugAddress!}/debug/`;
    const kept = async () =>
      (JSON.parse((await httpGet(`${url}envoyfilters`)).body) as { keptFilters: { source: string }[] })
        .keptFilters;
    heldFile([metaEntry, metaRouterRaw(false), destinationRuleRaw(false), evil]);
    writeFileSync(path.join(configDir, 'late.yaml'), 'kind: ServiceEntry\nspec: [unclosed\n');
    await waitFor(async () => {
      const config = JSON.parse((await httpGet(`${url}config`)).body) as {
        held: unknown[];
        files: { errors: { lastGood: boolean }[] };
      };
      return config.held.length > 0 && config.files.errors.some((e) => e.lastGood);
    }, 'the held service and the broken file');
    await running.reconciler.runNow();
    await waitFor(
      async () => (await kept()).some((k) => k.source === 'ServiceEntry/shop/svc'),
      'kept filters',
    );

    // Two MetaProtocol proxies on the example's route: one acknowledges, one rejects (its detail quotes markup).
    const paths = running.devCerts!.paths;
    rds = new RdsTestClient(running.rdsPort, {
      ca: readFileSync(paths.ca),
      cert: readFileSync(paths.clientCert),
      key: readFileSync(paths.clientKey),
    });
    const good = rds.sotw();
    good.send(
      sotwRequest([DEMO], {
        node: { id: 'sidecar~10.0.0.1~good-0.meta-dubbo~meta-dubbo.svc.cluster.local' },
      }),
    );
    good.send(ackOf(await good.next(), [DEMO]));
    const bad = rds.sotw();
    bad.send(
      sotwRequest([DEMO], { node: { id: 'sidecar~10.0.0.2~bad-0.meta-dubbo~meta-dubbo.svc.cluster.local' } }),
    );
    const resp = await bad.next();
    bad.send({
      ...ackOf(resp, [DEMO]),
      versionInfo: '',
      errorDetail: { code: 3, message: 'no cluster <script>x</script>' },
    });
    // A third proxy asks for two routes nobody serves (NOT SENT): one named after a service the page shows.
    const asking = rds.sotw();
    asking.send(sotwRequest([UNSERVED, NOWHERE], { node: { id: ASKING } }));
    await waitFor(async () => {
      const doc = JSON.parse((await httpGet(`${url}proxies`)).body) as {
        proxies: { nodeId: string; notSent?: string[] }[];
        routes: { acked: number; rejected: number }[];
      };
      return (
        doc.routes.some((r) => r.acked === 1 && r.rejected === 1) &&
        doc.proxies.some((p) => p.nodeId === ASKING && p.notSent?.length === 2)
      );
    }, 'one acknowledgement, one rejection and two routes not sent');
  });

  after(async () => {
    rds?.close();
    await running?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('renders services by protocol, the example split, proxies, the held object and the registry', async () => {
    const dom = await browse('--dump-dom');
    assert.match(dom, /<body[^>]* data-loaded="true"/, 'the script ran and every document loaded');

    for (const [service, protocol] of EXAMPLE_SERVICES) {
      const group = element(dom, 'section', `data-protocol="${protocol}"`);
      assert.match(group, new RegExp(`data-service="${service}"`), `${service} under ${protocol}`);
    }

    const split = exampleSplit();
    const card = element(dom, 'article', `data-service="${split.router}"`);
    const route = element(card, 'div', `data-route="${split.route}"`);
    assert.deepEqual(
      [...route.matchAll(/<li data-percent="([\d.]+)">/g)].map((m) => Number(m[1])),
      split.percents,
    );
    for (const p of split.percents)
      assert.match(route, new RegExp(`<span class="segment segment-\\d" style="width: ${p}%;">${p}%</span>`));
    assert.match(card, /rate limit local: 100\/1s/);
    assert.match(
      card,
      /inbound<\/span> istio-system\/aeraki-inbound-org\.apache\.dubbo\.samples\.basic\.api\.demoservice-20880/,
    );
    assert.match(
      card,
      /outbound<\/span> istio-system\/aeraki-outbound-org\.apache\.dubbo\.samples\.basic\.api\.demoservice-/,
    );
    assert.match(card, /data-state="rejected"/);
    assert.match(card, /data-badge="ok">acknowledged<\/span> sidecar~10\.0\.0\.1~good-0\.meta-dubbo/);
    assert.match(card, /data-badge="rejected">rejected<\/span> sidecar~10\.0\.0\.2~bad-0\.meta-dubbo/);

    const held = element(dom, 'article', 'data-service="shop/svc"');
    assert.match(held, /data-state="held"/);
    assert.match(held, /data-badge="held">held<\/span> not rendered: DestinationRule shop\/dr is invalid/);
    assert.match(dom, /data-problem="rejected"><span [^>]*>rejected<\/span> MetaRouter shop\/mr/);
    const problems = element(dom, 'section', 'id="problems"');
    assert.equal(problems.split('spec.hosts: held:').length - 1, 1, 'the held warning once');
    assert.doesNotMatch(
      problems,
      /ServiceEntry shop\/svc: spec\.hosts/,
      'its object named once, as the subject',
    );

    // Markup from the documents is text: escaped in the DOM, never an element.
    assert.match(dom, /&lt;img src=x&gt;/);
    assert.match(dom, /no cluster &lt;script&gt;x&lt;\/script&gt;/);
    assert.doesNotMatch(dom, /<img|<script>x/);

    const registries = element(dom, 'section', 'id="registries"');
    assert.match(
      registries,
      /data-registry="zk" data-state="ok"><span [^>]*>synced<\/span> zk \(zookeeper\): 1 services/,
    );
  });

  it('shows kept filters, the last good config in use, routes not sent, Redis and policy settings', async () => {
    const dom = await browse('--dump-dom');
    assert.match(dom, /<body[^>]* data-loaded="true"/);

    const sync = element(dom, 'p', 'id="sync"');
    assert.match(sync, /data-last-good="true"/);
    assert.match(
      sync,
      /data-badge="held">last good config in use<\/span> 1 file cannot be read: the last good read is in effect;/,
    );
    assert.match(sync, /EnvoyFilters? kept from before/);
    assert.doesNotMatch(sync, /data-badge="ok"/, 'no green synced while a last good config is in use');
    assert.match(
      element(dom, 'li', 'data-problem="file"'),
      /late\.yaml[\s\S]*its last good read is in effect/,
    );

    const held = element(dom, 'article', 'data-service="shop/svc"');
    assert.match(held, /<h4>EnvoyFilters \((\d+), \1 kept\)<\/h4>/);
    assert.match(
      held,
      /data-kept="held"><span [^>]*>outbound<\/span> istio-system\/aeraki-outbound-svc[^<]+<span [^>]*data-badge="kept">kept<\/span><span class="muted"> in effect, kept while its source is held/,
    );
    assert.match(
      element(dom, 'article', 'data-service="redis/redis-client"'),
      new RegExp(`data-badge="notsent">not sent</span> ${ASKING} \\(${UNSERVED.replaceAll('.', '\\.')}\\)`),
    );
    const notSent = element(dom, 'section', 'id="problems"');
    assert.match(
      notSent,
      new RegExp(
        `data-badge="notsent">not sent</span> route ${NOWHERE.replaceAll('.', '\\.')}: not sent to 1 proxy`,
      ),
    );

    const redis = element(dom, 'article', 'data-service="redis/redis-client"');
    const service = element(redis, 'div', 'data-settings="RedisService redis/redis-client"');
    assert.match(service, /route:<\/span> prefix "b:" → external-redis\.redis\.svc\.cluster\.local/);
    assert.match(
      service,
      /mirror:<\/span> 10% of prefix "b:" to external-redis\.redis\.svc\.cluster\.local \(writes only\)/,
    );
    assert.match(service, /auth:<\/span> from Secret redis-service-secret/);
    assert.match(service, /changed \d{4}-\d\d-\d\dT/);
    const destination = element(redis, 'div', 'data-settings="RedisDestination redis/redis-client"');
    assert.match(destination, /auth:<\/span> written in the object \(not shown\)/);
    assert.doesNotMatch(dom, /testredis123/, 'no credential on the page');

    const dubbo = element(dom, 'article', 'data-service="dubbo/dubbo-secondservice"');
    const policy = element(
      dubbo,
      'div',
      'data-settings="DubboAuthorizationPolicy dubbo/deny-test-namespaces"',
    );
    assert.match(policy, /action:<\/span> DENY/);
    assert.match(policy, /rule 1:<\/span> from namespaces test-\* → any call/);
    assert.match(dubbo, /data-settings="DubboAuthorizationPolicy dubbo\/allow-second-service"/);
    assert.match(element(dom, 'article', 'data-service="meta-dubbo/dubbo-demoservice"'), /changed \d{4}-/);
  });

  it('filters services by the box and refreshes on the interval chosen, both kept in the URL', async () => {
    const state = (query: string, width: number, script: string) =>
      evaluateAt(chromium!, root, `${url}${query}`, { width, height: 800 }, script);
    const loaded = `await new Promise((resolve) => {
        const check = () => (document.body?.dataset.loaded ? resolve() : setTimeout(check, 20));
        check();
      });`;
    const visible = `[...document.querySelectorAll('[data-service]')].filter((c) => !c.hidden).map((c) => c.dataset.service)`;
    for (const width of [375, 1600]) {
      const typed = (await state(
        '',
        width,
        `(async () => {
          ${loaded}
          const all = ${visible}.length;
          const box = document.getElementById('filter');
          box.value = 'redis';
          box.dispatchEvent(new Event('input'));
          const box2 = box.getBoundingClientRect();
          return [all, ${visible}, location.search, document.getElementById('filter-count').textContent,
            box2.right <= window.innerWidth, document.documentElement.scrollWidth,
            document.getElementById('refresh').value, document.body.dataset.refresh];
        })()`,
      )) as [number, string[], string, string, boolean, number, string, string];
      const [all, shown, search, count, fits, scrollWidth, refresh, running] = typed;
      assert.ok(all > 5, `${all} services`);
      assert.deepEqual(shown, ['redis/external-redis', 'redis/redis-client']);
      assert.equal(search, '?q=redis');
      assert.equal(count, `2 of ${all} services`);
      assert.ok(fits, `${width} px: the filter box fits`);
      assert.ok(scrollWidth <= width, `${width} px: the page is ${scrollWidth} px wide`);
      assert.deepEqual([refresh, running], ['0', '0'], 'refresh is off by default');
    }
    // From the URL: the filter and a 5 s refresh, which loads the documents again.
    const fromUrl = (await state(
      '?q=dubbo-secondservice&refresh=5',
      375,
      `(async () => {
        ${loaded}
        const shown = ${visible};
        await new Promise((resolve) => {
          const check = () => (Number(document.body.dataset.loads) >= 2 ? resolve() : setTimeout(check, 50));
          check();
        });
        return [shown, document.getElementById('filter').value, document.getElementById('refresh').value,
          ${visible}];
      })()`,
    )) as [string[], string, string, string[]];
    assert.deepEqual(fromUrl, [
      ['dubbo/dubbo-secondservice'],
      'dubbo-secondservice',
      '5',
      ['dubbo/dubbo-secondservice'],
    ]);
  });

  it('fits a phone and a wide screen without scrolling sideways', async () => {
    // After the script ran: how wide the document is against the viewport.
    const measure = `new Promise((resolve) => {
      const check = () => document.body?.dataset.loaded
        ? resolve([document.body.dataset.loaded, document.documentElement.scrollWidth, window.innerWidth])
        : setTimeout(check, 20);
      check();
    })`;
    for (const width of [375, 1600]) {
      const [loaded, scrollWidth, innerWidth] = (await evaluateAt(
        chromium!,
        root,
        url,
        { width, height: 800 },
        measure,
      )) as [string, number, number];
      assert.equal(loaded, 'true');
      assert.ok(scrollWidth <= width, `${width} px: the page is ${scrollWidth} px wide`);
      assert.equal(innerWidth, width, 'the viewport as asked (a phone widens it to fit wider content)');
    }
  });

  it('takes screenshots at a phone and a wide screen width', async () => {
    for (const [width, height] of [
      [375, 1400],
      [1600, 1000],
    ] as const) {
      const file = path.join(root, `debug-page-${width}.png`);
      await browse(`--screenshot=${file}`, `--window-size=${width},${height}`);
      assert.deepEqual(pngSize(file), { width, height });
    }
  });
});

describe("debug page in headless chromium: istiod's listener rejections", { skip }, () => {
  const root = mkdtempSync(path.join(tmpdir(), 'aeraki-debug-page-istiod-'));
  let api: FakeKubeApiServer;
  let istiod: FakeIstiod;
  let running: RunningServe;
  const REJECTED =
    'Error adding/updating listener(s) 10.0.0.1_20880: proto constraint <b>validation</b> failed';
  const PROXY = proxyId('web-1', 'web');
  const LACKING = proxyId('old-1', 'legacy');
  const LACKS =
    "Error adding/updating listener(s) 10.0.0.2_20881: Didn't find a registered implementation for " +
    "'envoy.filters.network.meta_protocol_proxy' with type URL: " +
    "'aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy'";

  before(async () => {
    assert.ok(chromium, 'chromium is not on PATH (.ci/run installs it with apt-get)');
    api = await startFakeKubeApiServer();
    const mesh = testCa();
    writeFileSync(path.join(root, 'root.pem'), mesh.ca);
    writeFileSync(path.join(root, 'token'), 'aeraki-token');
    istiod = await FakeIstiod.start({
      serve: 'v1',
      tls: { key: Buffer.from(mesh.serverKey), cert: Buffer.from(mesh.serverCert) },
    });
    istiod.syncz.tokens.set('aeraki-token', 'istio-system');
    // Two MetaProtocol services on listeners of their own: only orders' listener is rejected.
    const pay = se('pay');
    istiod.set([
      se('orders'),
      {
        ...pay,
        spec: { ...pay.spec, addresses: ['10.0.0.2'], ports: [{ ...pay.spec.ports[0]!, number: 20881 }] },
      },
    ]);
    running = await startServe(
      serveOptions({
        istiodAddress: `localhost:${istiod.port}`,
        istiodTls: true,
        istiodRootCertFile: path.join(root, 'root.pem'),
        istiodTokenFile: path.join(root, 'token'),
        devCertsDir: path.join(root, 'certs'),
        leaderElect: false,
        debugEndpoints: true,
        proxyStatusIntervalMs: 200,
      }),
      {
        logger: silentLogger,
        kubeConfig: fakeKubeConfig(api, { token: 'aeraki' }),
        backoff: { initialMs: 50, maxMs: 200 },
      },
    );
    await waitFor(
      () =>
        api
          .list('envoyfilters.networking.istio.io')
          .some((o) => o.metadata.annotations?.[SOURCE_ANNOTATION] === 'ServiceEntry/shop/orders'),
      'the EnvoyFilters of shop/orders',
    );
    istiod.syncz.proxies = [
      { id: PROXY, namespace: 'web', lds: 'ERROR', ldsError: REJECTED },
      { id: proxyId('web-2', 'web'), namespace: 'web', lds: 'SYNCED' },
      // An old sidecar image without the MetaProtocol proxy, on pay's listener.
      { id: LACKING, namespace: 'legacy', lds: 'ERROR', ldsError: LACKS },
    ];
    await waitFor(async () => {
      const doc = JSON.parse(
        (await httpGet(`http://${running.debugAddress!}/debug/proxies`)).body,
      ) as ProxiesDocument;
      return doc.listenerRejections?.sources.length === 2;
    }, 'both listener rejections in /debug/proxies');
  });

  after(async () => {
    await running?.stop();
    await istiod?.close();
    await api?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('highlights the rejection on the service it belongs to and among the problems', async () => {
    const dom = await chromiumRun(chromium!, root, `http://${running.debugAddress!}/debug/`, ['--dump-dom']);
    assert.match(dom, /<body[^>]* data-loaded="true"/);
    const escaped = 'proto constraint &lt;b&gt;validation&lt;/b&gt; failed';

    const orders = element(dom, 'article', 'data-service="shop/orders"');
    assert.match(orders, /data-state="rejected"/);
    assert.match(orders, /<h3>shop\/orders<\/h3><span [^>]*data-badge="rejected">rejected<\/span>/);
    const rejection = element(orders, 'div', 'data-listener-rejection="ProxyRejected"');
    assert.match(rejection, /data-badge="rejected">rejected<\/span> by 1 proxy in namespace web/);
    assert.ok(
      rejection.includes(`first: ${PROXY}: Error adding/updating listener(s) 10.0.0.1_20880: ${escaped}`),
    );
    const proxy = element(orders, 'li', `data-listener-proxy="${PROXY}"`);
    assert.match(proxy, /data-badge="rejected">rejected<\/span>/);
    assert.match(proxy, /\(10\.0\.0\.1_20880\)/);

    assert.doesNotMatch(orders, /ProxyLacksExtension|old-1\.legacy/);

    const pay = element(dom, 'article', 'data-service="shop/pay"');
    assert.match(pay, /data-state="rejected"/);
    assert.match(pay, /<h3>shop\/pay<\/h3><span [^>]*data-badge="lacks">lacks extension<\/span>/);
    const lacks = element(pay, 'div', 'data-listener-rejection="ProxyLacksExtension"');
    assert.match(lacks, /data-badge="lacks">lacks extension<\/span> by 1 proxy in namespace legacy/);
    assert.match(lacks, /no implementation of envoy\.filters\.network\.meta_protocol_proxy/);
    assert.match(element(pay, 'li', `data-listener-proxy="${LACKING}"`), /\(10\.0\.0\.2_20881\)/);
    assert.doesNotMatch(pay, /ProxyRejected|web-1\.web/);

    const problems = element(dom, 'section', 'id="problems"');
    assert.match(
      problems,
      /data-badge="lacks">lacks extension<\/span> ServiceEntry\/shop\/pay: lacks extension by 1 proxy in namespace legacy \(istiod\)/,
    );
    const problem = element(problems, 'li', 'data-problem="listener"');
    assert.match(
      problem,
      /data-badge="rejected">rejected<\/span> ServiceEntry\/shop\/orders: rejected by 1 proxy in namespace web \(istiod\)/,
    );
    assert.ok(problem.includes(escaped), problem);
    assert.doesNotMatch(dom, /<b>validation/);

    const line = element(dom, 'p', 'id="istiod"');
    assert.match(line, /data-state="answering"/);
    assert.match(line, /answering, last answer at \d{4}-\d\d-\d\dT[\d:.]+Z, 3 proxies reported/);
  });

  it('fits a phone with the long proxy ids and errors', async () => {
    const url = `http://${running.debugAddress!}/debug/`;
    const measure = `new Promise((resolve) => {
      const check = () => document.body?.dataset.loaded
        ? resolve([document.body.dataset.loaded, document.documentElement.scrollWidth])
        : setTimeout(check, 20);
      check();
    })`;
    const [loaded, scrollWidth] = (await evaluateAt(
      chromium!,
      root,
      url,
      { width: 375, height: 800 },
      measure,
    )) as [string, number];
    assert.equal(loaded, 'true');
    assert.ok(scrollWidth <= 375, `the page is ${scrollWidth} px wide`);
    const file = path.join(root, 'debug-page-istiod-375.png');
    await chromiumRun(chromium!, root, url, [`--screenshot=${file}`, '--window-size=375,1400']);
    assert.deepEqual(pngSize(file), { width: 375, height: 1400 });
  });
});
