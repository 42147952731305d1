import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { configConflicts } from '../../src/model/conflicts/conflicts.ts';
import { formatIssue } from '../../src/model/result.ts';
import { destinationRule, metaRouter, serviceEntry, storeOf } from '../support/builders.ts';

const HOST = 'org.apache.dubbo.samples.basic.api.demoservice';
const se = serviceEntry('metaprotocol', 'demo', {
  hosts: [HOST],
  ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
});
const route = (subset?: string, weight?: number, port?: number) => ({
  destination: { host: HOST, ...(subset ? { subset } : {}), ...(port ? { port: { number: port } } : {}) },
  ...(weight !== undefined ? { weight } : {}),
});
const mrRoute = (name: string, extra: object) => ({
  name,
  route: [route('v1')],
  requestMutation: [],
  responseMutation: [],
  ...extra,
});

describe('buildRouteConfigurations', () => {
  it('serves the default route without a MetaRouter, one resource per MetaProtocol port, sorted', () => {
    const other = serviceEntry('a', 'b', {
      hosts: ['a.example'],
      ports: [
        { number: 9091, name: 'tcp-metaprotocol-thrift' },
        { number: 9090, name: 'tcp-metaprotocol-thrift-x' },
        { number: 80, name: 'http-web' },
        { number: 20880, name: 'tcp-dubbo' },
      ],
    });
    const { routes, issues } = buildRouteConfigurations(storeOf([se, other]));
    assert.deepEqual(issues, []);
    assert.deepEqual(
      routes.map((r) => r.name),
      ['a.example_9090', 'a.example_9091', `${HOST}_20880`],
    );
    assert.deepEqual(routes[0], {
      name: 'a.example_9090',
      virtualHosts: [
        {
          name: 'dummy',
          domains: ['*'],
          routes: [
            { name: 'default', match: { prefix: '/' }, route: { cluster: 'outbound|9090||a.example' } },
          ],
        },
      ],
    });
  });

  it('sorts attribute matchers by key and maps every match kind', () => {
    const mr = metaRouter('metaprotocol', 'mr', {
      hosts: [HOST],
      routes: [
        mrRoute('r', {
          match: {
            attributes: {
              z: { regex: '*' },
              b: { prefix: 'p' },
              a: { exact: '' },
              c: { regex: '^x' },
              d: null,
            },
          },
        }),
      ],
    });
    const { routes } = buildRouteConfigurations(storeOf([se, mr]));
    assert.deepEqual(routes[0]?.virtualHosts[0].routes[0]?.match, {
      prefix: '/',
      headers: [
        { name: 'a', exactMatch: '' },
        { name: 'b', prefixMatch: 'p' },
        { name: 'c', safeRegexMatch: { googleRe2: {}, regex: '^x' } },
        { name: 'd', presentMatch: true },
        { name: 'z', presentMatch: true },
      ],
    });
  });

  it('splits traffic with totalWeight, mirrors with fractions, mutates headers, hashes per subset', () => {
    const dr = destinationRule('metaprotocol', 'dr', {
      host: HOST,
      trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: 'top' } } },
      subsets: [
        {
          name: 'v1',
          labels: {},
          trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: 'one' } } },
        },
        { name: 'v2', labels: {} },
      ],
    });
    const mr = metaRouter('metaprotocol', 'mr', {
      hosts: [HOST],
      routes: [
        mrRoute('split', { route: [route('v1', 30), route('v2', 70, 20881), route(undefined, 0)] }),
        mrRoute('mirror', {
          mirror: { host: 'm.example', subset: 'v3', port: { number: 1 } },
          mirrorPercentage: { value: 12.5 },
          requestMutation: [{ key: 'k', value: 'v' }],
          responseMutation: [{ key: 'r', value: 's' }],
        }),
        mrRoute('mirror-all', { route: [route('v2')], mirror: { host: 'm.example' } }),
      ],
    });
    const { routes, issues } = buildRouteConfigurations(storeOf([se, dr, mr]));
    assert.deepEqual(issues, []);
    const rs = routes[0]?.virtualHosts[0].routes;
    assert.deepEqual(rs?.[0]?.route, {
      weightedClusters: {
        clusters: [
          { name: `outbound|20880|v1|${HOST}`, weight: 30 },
          { name: `outbound|20881|v2|${HOST}`, weight: 70 },
          { name: `outbound|20880||${HOST}`, weight: 0 },
        ],
        totalWeight: 100,
      },
      hashPolicy: [{ header: { headerName: 'one' } }, { header: { headerName: 'top' } }],
    });
    assert.deepEqual(rs?.[1], {
      name: 'mirror',
      match: { prefix: '/' },
      route: {
        cluster: `outbound|20880|v1|${HOST}`,
        hashPolicy: [{ header: { headerName: 'one' } }],
        requestMirrorPolicies: [
          {
            cluster: 'outbound|1|v3|m.example',
            runtimeFraction: { defaultValue: { numerator: 125000, denominator: 'MILLION' } },
          },
        ],
      },
      requestHeadersToAdd: [{ header: { key: 'k', value: 'v' } }],
      responseHeadersToAdd: [{ header: { key: 'r', value: 's' } }],
    });
    assert.deepEqual(rs?.[2]?.route, {
      cluster: `outbound|20880|v2|${HOST}`,
      requestMirrorPolicies: [
        {
          cluster: 'outbound|20880||m.example',
          runtimeFraction: { defaultValue: { numerator: 1000000, denominator: 'MILLION' } },
        },
      ],
    });
  });

  it('treats a MetaRouter without routes as absent and uses the D6 winners', () => {
    const short = serviceEntry('shop', 'cat', {
      hosts: ['cat.shop.svc.cluster.local'],
      ports: [{ number: 1, name: 'tcp-metaprotocol-x' }],
    });
    const old = destinationRule(
      'shop',
      'z-old',
      { host: 'cat', trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: 'old' } } } },
      { creationTimestamp: '2020-01-01T00:00:00Z' },
    );
    const young = destinationRule('shop', 'a-new', {
      host: 'cat.shop.svc.cluster.local',
      trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: 'new' } } },
    });
    const limitsOnly = metaRouter(
      'shop',
      'limits',
      { hosts: ['cat'] },
      { creationTimestamp: '2019-01-01T00:00:00Z' },
    );
    const { routes } = buildRouteConfigurations(storeOf([short, old, young, limitsOnly]));
    assert.deepEqual(routes[0]?.virtualHosts[0].routes, [
      {
        name: 'default',
        match: { prefix: '/' },
        route: {
          cluster: 'outbound|1||cat.shop.svc.cluster.local',
          hashPolicy: [{ header: { headerName: 'old' } }],
        },
      },
    ]);
  });

  it('takes the conflicts of the pass when given, computes them when not', () => {
    const se = serviceEntry('shop', 'cat', {
      hosts: ['cat.shop.svc.cluster.local'],
      ports: [{ number: 1, name: 'tcp-metaprotocol-x' }],
    });
    const host = 'cat.shop.svc.cluster.local';
    const old = metaRouter('shop', 'old', { hosts: [host] }, { creationTimestamp: '2020-01-01T00:00:00Z' });
    const young = metaRouter('shop', 'young', { hosts: [host] });
    const view = storeOf([se, old, young]);
    const conflicts = configConflicts(view);
    assert.ok(conflicts.length > 0);
    const computed = buildRouteConfigurations(view);
    const lines = computed.issues.map(formatIssue);
    for (const c of conflicts) assert.ok(lines.includes(formatIssue(c)), formatIssue(c));
    assert.equal(JSON.stringify(buildRouteConfigurations(view, conflicts)), JSON.stringify(computed));
    const none = buildRouteConfigurations(view, []);
    assert.deepEqual(none.issues, []);
    assert.equal(JSON.stringify(none.routes), JSON.stringify(computed.routes));
  });

  it('reports D1 ports and renders nothing for that ServiceEntry, serving the rest', () => {
    const bad = serviceEntry('ns', 'bad', {
      hosts: ['bad.example'],
      ports: [
        { number: 1, name: 'tcp-metaprotocol' },
        { number: 2, name: 'tcp-MetaProtocol-' },
        { number: 3, name: 'tcp-metaprotocol-dubbo' },
      ],
    });
    const good = serviceEntry('ns', 'good', {
      hosts: ['good.example'],
      ports: [{ number: 4, name: 'tcp-metaprotocol-dubbo' }],
    });
    const { routes, issues } = buildRouteConfigurations(storeOf([bad, good]));
    assert.deepEqual(
      routes.map((r) => r.name),
      ['good.example_4'],
    );
    const texts = issues.map(formatIssue);
    assert.equal(texts.length, 2);
    assert.match(texts[0] ?? '', /^ServiceEntry ns\/bad: spec\.ports\[0\]\.name: /);
    assert.match(texts[1] ?? '', /^ServiceEntry ns\/bad: spec\.ports\[1\]\.name: /);
  });

  it('is deterministic and keeps the oldest ServiceEntry for a duplicated name', () => {
    const a = serviceEntry(
      'b-ns',
      'dup',
      { hosts: ['h.example'], ports: [{ number: 1, name: 'tcp-metaprotocol-x' }] },
      {
        creationTimestamp: '2020-01-01T00:00:00Z',
      },
    );
    const b = serviceEntry('a-ns', 'dup', {
      hosts: ['h.example'],
      ports: [{ number: 1, name: 'tcp-metaprotocol-y' }],
    });
    const mrA = metaRouter('x', 'mr', {
      hosts: ['h.example'],
      routes: [mrRoute('r', { match: { attributes: { b: { exact: '1' }, a: { exact: '2' } } } })],
    });
    const one = JSON.stringify(buildRouteConfigurations(storeOf([a, b, mrA])));
    const two = JSON.stringify(buildRouteConfigurations(storeOf([mrA, b, a])));
    assert.equal(one, two);
    assert.equal(buildRouteConfigurations(storeOf([a, b])).routes.length, 1);
  });
});
