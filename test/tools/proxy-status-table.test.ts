// `aeraki proxy-status` as data: the /debug/proxies document summed up per source object and per proxy, and the
// tables printed from it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProxiesDocument, ProxyDoc } from '../../src/tools/proxies-document.ts';
import { readProxiesDocument } from '../../src/tools/proxies-document.ts';
import {
  formatDetail,
  formatProxies,
  formatSources,
  notes,
  oneLine,
  proxyDetail,
  proxyRows,
  shortName,
  sourceRows,
} from '../../src/tools/proxy-status-table.ts';

const id = (pod: string, ns: string) => `sidecar~10.0.0.1~${pod}.${ns}~${ns}.svc.cluster.local`;
const LONG = `bad route: ${'x'.repeat(200)}\nsecond line`;

function proxy(pod: string, routes: ProxyDoc['routes']): ProxyDoc {
  return {
    nodeId: id(pod, 'shop'),
    peer: `spiffe://cluster.local/ns/shop/sa/${pod}`,
    namespace: 'shop',
    protocol: 'sotw',
    connectedSince: '2026-12-04T10:00:00.000Z',
    routes,
  };
}

const DOC: ProxiesDocument = {
  proxies: [
    proxy('a', [
      { name: 'r1', state: 'acked', sent: 'v1', acked: 'v1' },
      {
        name: 'r2',
        state: 'rejected',
        sent: 'v2',
        acked: 'v1',
        rejected: { version: 'v2', errorDetail: LONG },
      },
    ]),
    proxy('b', [
      { name: 'r1', state: 'pending', sent: 'v1' },
      { name: 'r3', state: 'acked', sent: 'v3', acked: 'v3' },
    ]),
    proxy('c', [{ name: 'r1', state: 'acked', sent: 'v1', acked: 'v1' }]),
  ],
  routes: [
    {
      name: 'r1',
      source: 'MetaRouter/shop/dubbo',
      subscribed: 3,
      acked: 2,
      pending: 1,
      oldestPendingMs: 5,
      rejected: 0,
    },
    {
      name: 'r2',
      source: 'MetaRouter/shop/dubbo',
      subscribed: 1,
      acked: 0,
      pending: 0,
      oldestPendingMs: 0,
      rejected: 1,
    },
    { name: 'r3', subscribed: 1, acked: 1, pending: 0, oldestPendingMs: 0, rejected: 0 },
  ],
  routeConfigsRejected: 1,
  proxiesRejecting: 1,
  listenerRejections: {
    state: 'answering',
    answeredAt: '2026-12-04T10:00:01.000Z',
    proxiesReported: 4,
    sources: [],
    proxies: [
      {
        id: id('c', 'shop'),
        namespace: 'shop',
        reason: 'ProxyRejected',
        listeners: ['10.96.10.20_20880'],
        errorDetail: 'Error adding/updating listener(s) 10.96.10.20_20880: bad',
        sources: ['ServiceEntry/shop/dubbo'],
      },
      {
        id: id('d', 'web'),
        namespace: 'web',
        reason: 'ProxyLacksExtension',
        listeners: [],
        filter: 'envoy.filters.network.meta_protocol_proxy',
        errorDetail:
          "Didn't find a registered implementation for 'envoy.filters.network.meta_protocol_proxy'",
        sources: ['MetaRouter/shop/dubbo', 'ServiceEntry/shop/dubbo'],
      },
    ],
  },
};

describe('proxy-status rows', () => {
  it('per source: each proxy once, in its worst state; listener rejections of istiod join the same row', () => {
    const rows = sourceRows(DOC);
    assert.deepEqual(
      rows.map((r) => [r.source, r.acked, r.pending, r.rejected]),
      [
        // a rejects r2 (RDS), b waits on r1, c acknowledged r1, d rejects a listener (istiod).
        ['MetaRouter/shop/dubbo', 1, 1, 2],
        ['RouteConfiguration/r3', 1, 0, 0],
        // Only istiod's view: no acknowledgement counts; c and d reject its listeners.
        ['ServiceEntry/shop/dubbo', undefined, undefined, 2],
      ],
    );
    assert.deepEqual(rows[0]?.firstError, { proxy: id('a', 'shop'), what: 'route r2', detail: LONG });
    assert.equal(rows[2]?.firstError?.what, 'ProxyRejected');
  });

  it('per proxy: route counts by state, listener rejections by source, first error', () => {
    const rows = proxyRows(DOC);
    assert.deepEqual(
      rows.map((r) => [shortName(r.id), r.routes, r.acked, r.pending, r.rejected, r.listenerSources.length]),
      [
        ['a.shop', 2, 1, 0, 1, 0],
        ['b.shop', 2, 1, 1, 0, 0],
        ['c.shop', 1, 1, 0, 0, 1],
        ['d.web', 0, 0, 0, 0, 2],
      ],
    );
    assert.equal(rows[2]?.firstError?.what, 'ProxyRejected');
  });

  it('a proxy by id, by <pod>.<ns>, or not at all', () => {
    assert.equal(proxyDetail(DOC, id('a', 'shop'))?.streams.length, 1);
    const d = proxyDetail(DOC, 'd.web');
    assert.equal(d?.id, id('d', 'web'));
    assert.equal(d?.streams.length, 0);
    assert.equal(d?.listeners?.reason, 'ProxyLacksExtension');
    assert.equal(proxyDetail(DOC, 'nobody.shop'), undefined);
  });
});

describe('proxy-status: routes a proxy asks for and was not sent (NOT SENT)', () => {
  // b and c subscribe to a route the server does not hold; b's other routes stand as before.
  const b = DOC.proxies[1]!;
  const c = DOC.proxies[2]!;
  const UNSERVED: ProxiesDocument = {
    ...DOC,
    proxies: [
      DOC.proxies[0]!,
      { ...b, notSent: ['gone.shop_20880'] },
      { ...c, notSent: ['gone.shop_20880'] },
    ],
  };

  it('counts the proxies per source and per proxy', () => {
    const rows = sourceRows(UNSERVED);
    const gone = rows.find((r) => r.source === 'RouteConfiguration/gone.shop_20880');
    assert.deepEqual(gone, { source: 'RouteConfiguration/gone.shop_20880', notSent: 2, rejected: 0 });
    assert.equal(rows.find((r) => r.source === 'MetaRouter/shop/dubbo')?.notSent, 0);
    assert.deepEqual(
      proxyRows(UNSERVED).map((r) => [shortName(r.id), r.routes, r.notSent]),
      [
        ['a.shop', 2, 0],
        ['b.shop', 3, 1],
        ['c.shop', 2, 1],
        ['d.web', 0, 0],
      ],
    );
  });

  it('prints NOT SENT in the tables and in the proxy details, as istioctl does', () => {
    const sources = formatSources(sourceRows(UNSERVED), false);
    assert.match(sources, /^RouteConfiguration\/gone\.shop_20880\s+-\s+-\s+2\s+0$/m);
    const proxies = formatProxies(proxyRows(UNSERVED), false).split('\n');
    assert.match(proxies[0]!, /^PROXY\s+NAMESPACE\s+ROUTES\s+ACKED\s+PENDING\s+NOT SENT\s+REJECTED\s/);
    assert.match(proxies[2]!, /^b\.shop\s+shop\s+3\s+1\s+1\s+1\s+0\s+-$/);
    const detail = formatDetail(UNSERVED, proxyDetail(UNSERVED, 'b.shop')!, false);
    assert.match(detail, /^gone\.shop_20880\s+RouteConfiguration\/gone\.shop_20880\s+NOT SENT\s+-\s+-$/m);
    assert.match(detail, /^r1\s+MetaRouter\/shop\/dubbo\s+PENDING\s+v1\s+-$/m);
  });
});

describe('proxy-status tables', () => {
  it('cuts errors to one terminal-friendly line; -o wide prints them whole', () => {
    const table = formatSources(sourceRows(DOC), false);
    const lines = table.trimEnd().split('\n');
    assert.match(lines[0]!, /^SOURCE\s+ACKED\s+PENDING\s+NOT SENT\s+REJECTED\s+FIRST ERROR$/);
    assert.match(lines[1]!, /^MetaRouter\/shop\/dubbo\s+1\s+1\s+0\s+2\s+a\.shop: bad route: x+\.\.\.$/);
    assert.match(lines[3]!, /^ServiceEntry\/shop\/dubbo\s+-\s+-\s+0\s+2\s+c\.shop: Error adding/);
    assert.equal(lines.length, 4);
    assert.ok(
      lines.every((l) => l.length <= 140),
      table,
    );
    const wide = formatSources(sourceRows(DOC), true);
    assert.ok(wide.includes(`${id('a', 'shop')}: route r2: ${oneLine(LONG)}`), wide);
    assert.ok(wide.includes('second line'));
  });

  it('columns line up', () => {
    const lines = formatProxies(proxyRows(DOC), false).trimEnd().split('\n');
    const at = lines[0]!.indexOf('LISTENERS');
    assert.ok(at > 0);
    for (const l of lines.slice(1)) assert.match(l.slice(at), /^(REJECTED|-)/, l);
    assert.match(
      lines[1]!,
      /^a\.shop\s.*-\s+bad route: x+\.\.\.$/,
      'the row is the proxy: its error without its name',
    );
    const wide = formatProxies(proxyRows(DOC), true);
    assert.ok(wide.includes(`${id('a', 'shop')}   shop`), wide);
    assert.ok(wide.includes(`route r2: ${oneLine(LONG)}`), wide);
  });

  it("a proxy's details: its routes with their sources and its listener rejection", () => {
    const text = formatDetail(DOC, proxyDetail(DOC, 'c.shop')!, false);
    assert.match(text, /^Proxy: sidecar~10\.0\.0\.1~c\.shop~shop\.svc\.cluster\.local$/m);
    assert.match(text, /^r1\s+MetaRouter\/shop\/dubbo\s+ACKED\s+v1\s+v1$/m);
    assert.match(text, /^Listeners \(istiod\): ProxyRejected by ServiceEntry\/shop\/dubbo$/m);
    assert.match(text, /^ {2}listeners: 10\.96\.10\.20_20880$/m);
    const b = formatDetail(DOC, proxyDetail(DOC, 'b.shop')!, false);
    assert.match(b, /no rejection of this controller reported/);
  });

  it('notes say what the tables cannot: proxy status off, istiod refusing, nothing connected', () => {
    assert.deepEqual(notes(DOC), []);
    const { listenerRejections: _, ...off } = DOC;
    assert.match(notes(off).join('\n'), /not asked \(proxy status is off/);
    const refused = { ...DOC, listenerRejections: { ...DOC.listenerRejections!, state: 'refused' } };
    assert.match(notes(refused).join('\n'), /istiod refuses istio\.io\/debug\/syncz/);
    const empty: ProxiesDocument = { proxies: [], routes: [], routeConfigsRejected: 0, proxiesRejecting: 0 };
    assert.match(notes(empty).join('\n'), /no proxy is connected/);
  });

  it('a note when istiod answers only the form without rejection messages', () => {
    const form = (f: 'detailed' | 'status') => ({
      ...DOC,
      listenerRejections: { ...DOC.listenerRejections!, form: f },
    });
    assert.match(notes(form('status')).join('\n'), /reads as stale: rejections without their message/);
    assert.deepEqual(notes(form('detailed')), []);
  });

  it('reads only what has the document shape', () => {
    assert.equal(readProxiesDocument(JSON.parse(JSON.stringify(DOC))).ok, true);
    assert.equal(readProxiesDocument([]).ok, false);
    assert.equal(readProxiesDocument({ proxies: [] }).ok, false);
    assert.equal(readProxiesDocument({ proxies: [], routes: [], listenerRejections: {} }).ok, false);
  });
});
