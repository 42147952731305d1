// Our own waypoint's translation (src/waypoint/): which services a Gateway of class aeraki-waypoint carries (bound by
// their namespace's label, their own, and istio.io/use-waypoint-namespace), the listener and chain shapes of the
// brief, EDS clusters per subset with the subset's endpoints, what a Gateway cannot carry, and that every resource
// and assembled Listener parses strictly as the pinned Envoy API.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  THRIFT_ROUTE_TYPE,
  type ProtoJson,
} from '../../src/model/ambient/xds.ts';
import { destinationRule, serviceEntry, virtualService } from '../support/builders.ts';
import {
  changeOf,
  contributionOf,
  kubeService,
  ORDERS,
  ownGateway,
  problemsOf,
  USE,
  world,
} from './translate-support.ts';

const resource = (
  json: readonly { typeUrl: string; name: string; json: ProtoJson }[],
  type: string,
  name: string,
) => json.find((r) => r.typeUrl === type && r.name === name)?.json;

describe('own waypoint translation', () => {
  it('gives the Gateway its listener and one contribution per bound service, all valid Envoy API', () => {
    const { translator } = world();
    const changes = translator.full();
    assert.deepEqual(
      changes.map((c) => c.gateway),
      ['shop/wp'],
    );
    const change = changeOf(changes, 'shop/wp');
    assert.equal(change.listener?.['name'], 'proxy_protocol_inbound');
    assert.deepEqual(
      [...change.services.keys()],
      ['Service/other/billing', 'Service/shop/orders', 'ServiceEntry/ext/pay'],
    );
    assert.deepEqual(problemsOf(changes), []);

    const orders = contributionOf(change, 'Service/shop/orders');
    const chain = orders.chains[0] as {
      name: string;
      filter_chain_match: unknown;
      filters: { name: string }[];
    };
    assert.equal(chain.name, `${ORDERS}_20880`);
    assert.deepEqual(chain.filter_chain_match, {
      destination_port: 20880,
      prefix_ranges: [{ address_prefix: '10.96.0.1', prefix_len: 32 }],
    });
    assert.deepEqual(
      chain.filters.map((f) => f.name),
      ['proxy_protocol_authority', 'envoy.filters.network.tcp_proxy'],
    );
    const cluster = `outbound|20880||${ORDERS}`;
    assert.deepEqual(resource(orders.resources, CLUSTER_TYPE, cluster), {
      name: cluster,
      type: 'EDS',
      eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } },
      connect_timeout: '10s',
      lb_policy: 'LEAST_REQUEST',
    });
    const cla = resource(orders.resources, ENDPOINT_TYPE, cluster) as {
      endpoints: { lb_endpoints: unknown[] }[];
    };
    assert.deepEqual(cla.endpoints[0]?.lb_endpoints, [
      { endpoint: { address: { socket_address: { address: '10.1.0.1', port_value: 20880 } } } },
      { endpoint: { address: { socket_address: { address: '10.1.0.2', port_value: 20880 } } } },
      {
        endpoint: { address: { socket_address: { address: '10.1.0.3', port_value: 20880 } } },
        load_balancing_weight: 3,
      },
    ]);

    const billing = contributionOf(change, 'Service/other/billing').chains[0] as {
      filter_chain_match: unknown;
    };
    assert.deepEqual(billing.filter_chain_match, {
      destination_port: 20880,
      prefix_ranges: [
        { address_prefix: '10.96.0.7', prefix_len: 32 },
        { address_prefix: 'fd00::7', prefix_len: 128 },
      ],
    });
    const pay = contributionOf(change, 'ServiceEntry/ext/pay');
    assert.deepEqual(
      pay.resources.map((r) => `${r.typeUrl.slice(r.typeUrl.lastIndexOf('.') + 1)} ${r.name}`),
      [
        'Cluster outbound|9090||pay.example.com',
        'ClusterLoadAssignment outbound|9090||pay.example.com',
        'RouteConfiguration pay.example.com_9090',
      ],
    );
    assert.ok(resource(pay.resources, THRIFT_ROUTE_TYPE, 'pay.example.com_9090'));
    assert.deepEqual(translator.coverage.uncarried('shop/wp'), []);
    assert.deepEqual(translator.issues(), []);
  });

  it('builds a cluster per subset with the endpoints of its labels and its load balancer', () => {
    const { store, translator } = world();
    store.upsert(
      destinationRule('shop', 'orders', {
        host: ORDERS,
        trafficPolicy: { loadBalancer: { simple: 'RANDOM' } },
        subsets: [
          {
            name: 'v1',
            labels: { version: 'v1' },
            trafficPolicy: { loadBalancer: { simple: 'ROUND_ROBIN' } },
          },
          { name: 'v2', labels: { version: 'v2' } },
        ],
      }),
    );
    const route = [
      { destination: { host: ORDERS, subset: 'v1' }, weight: 80 },
      { destination: { host: ORDERS, subset: 'v2' }, weight: 20 },
    ];
    store.upsert(virtualService('shop', 'orders', { hosts: [ORDERS], tcp: [{ match: [], route }] }));
    const changes = translator.full();
    assert.deepEqual(problemsOf(changes), []);
    const orders = contributionOf(changeOf(changes, 'shop/wp'), 'Service/shop/orders');
    const addresses = (name: string) =>
      (
        resource(orders.resources, ENDPOINT_TYPE, name) as {
          endpoints: { lb_endpoints: { endpoint: { address: { socket_address: { address: string } } } }[] }[];
        }
      ).endpoints[0]?.lb_endpoints.map((e) => e.endpoint.address.socket_address.address);
    assert.deepEqual(addresses(`outbound|20880|v1|${ORDERS}`), ['10.1.0.1', '10.1.0.3']);
    assert.deepEqual(addresses(`outbound|20880|v2|${ORDERS}`), ['10.1.0.2']);
    const lb = (name: string) => resource(orders.resources, CLUSTER_TYPE, name)?.['lb_policy'];
    assert.equal(lb(`outbound|20880|v1|${ORDERS}`), 'ROUND_ROBIN');
    assert.equal(lb(`outbound|20880|v2|${ORDERS}`), 'RANDOM');
  });

  it('says what the Gateway cannot carry: no address, a protocol its image lacks, a port it does not proxy', () => {
    const { store, ambient, translator } = world();
    store.upsert(kubeService('shop', 'headless', [{ number: 20880, name: 'tcp-fake' }], { addresses: [] }));
    store.upsert(
      kubeService('shop', 'events', [
        { number: 9092, name: 'tcp-contrib' },
        { number: 8080, name: 'http-web' },
      ]),
    );
    const changes = translator.full();
    assert.deepEqual(problemsOf(changes), []);
    const services = [...changeOf(changes, 'shop/wp').services.keys()];
    assert.ok(!services.includes('Service/shop/headless') && !services.includes('Service/shop/events'));
    assert.deepEqual(translator.coverage.uncarried('shop/wp'), [
      'Service shop/events port http-web (8080): no protocol this waypoint proxies (a port name such as tcp-dubbo): its connections are dropped',
      'Service shop/events port tcp-contrib (9092): needs an Envoy contrib image, the waypoint runs docker.io/envoyproxy/envoy:v1.38.4',
      'Service shop/headless port tcp-fake (20880): the service has no address ztunnel could send to',
    ]);
    const heard: string[][] = [];
    translator.coverage.subscribe((g) => heard.push([...g]));
    const image = 'docker.io/envoyproxy/envoy:contrib-v1.38.4';
    ambient.set({ kind: 'KubernetesGateway', value: ownGateway('shop', 'wp', { ownWaypointImage: image }) });
    const update = translator.update();
    assert.deepEqual(heard, [['shop/wp']]);
    assert.ok(contributionOf(changeOf(update, 'shop/wp'), 'Service/shop/events').chains.length === 1);
    assert.equal(translator.coverage.uncarried('shop/wp').length, 2);
    assert.deepEqual(problemsOf(update), []);
  });

  it('sends nothing for a service of another waypoint class or bound to no Gateway', () => {
    const { store, ambient, translator } = world();
    ambient.set({
      kind: 'KubernetesGateway',
      value: ownGateway('shop', 'istio', { className: 'istio-waypoint' }),
    });
    store.upsert(
      kubeService('shop', 'theirs', [{ number: 20880, name: 'tcp-fake' }], { labels: { [USE]: 'istio' } }),
    );
    const changes = translator.full();
    assert.deepEqual(
      changes.map((c) => c.gateway),
      ['shop/wp'],
    );
    assert.ok(!changeOf(changes, 'shop/wp').services.has('Service/shop/theirs'));
    assert.ok(!changeOf(changes, 'shop/wp').services.has('Service/shop/plain'));
  });

  it('gives a chain name and a destination to one service of a Gateway, the others serve the rest', () => {
    const { store, translator } = world();
    store.upsert(
      serviceEntry('shop', 'a-orders', {
        hosts: [ORDERS],
        addresses: ['10.96.0.1'],
        ports: [{ number: 20880, name: 'tcp-fake' }],
      }),
    );
    store.upsert(
      kubeService('shop', 'twin', [{ number: 20880, name: 'tcp-fake' }], {
        addresses: ['10.96.0.1', '10.96.0.9'],
      }),
    );
    const changes = translator.full();
    const change = changeOf(changes, 'shop/wp');
    assert.deepEqual(problemsOf(changes), []);
    assert.deepEqual(contributionOf(change, 'Service/shop/orders').chains, []);
    const twin = contributionOf(change, 'Service/shop/twin').chains[0] as { filter_chain_match: unknown };
    assert.deepEqual(twin.filter_chain_match, {
      destination_port: 20880,
      prefix_ranges: [{ address_prefix: '10.96.0.9', prefix_len: 32 }],
    });
    assert.deepEqual(translator.coverage.uncarried('shop/wp'), [
      `Service shop/orders port 20880: filter chain ${ORDERS}_20880 is carried for ServiceEntry shop/a-orders`,
      'Service shop/twin port 20880: address 10.96.0.1/32 is carried for ServiceEntry shop/a-orders',
    ]);
    const all = [...change.services.values()].flatMap((c) => c?.chains ?? []) as {
      name: string;
      filter_chain_match: { destination_port: number; prefix_ranges: { address_prefix: string }[] };
    }[];
    const names = all.map((c) => c.name);
    const matches = all.flatMap((c) =>
      c.filter_chain_match.prefix_ranges.map(
        (p) => `${c.filter_chain_match.destination_port} ${p.address_prefix}`,
      ),
    );
    assert.equal(new Set(names).size, names.length);
    assert.equal(new Set(matches).size, matches.length);

    store.delete('ServiceEntry', 'shop', 'a-orders');
    const update = changeOf(translator.update(), 'shop/wp');
    assert.deepEqual([...update.services.keys()], ['Service/shop/orders', 'ServiceEntry/shop/a-orders']);
    assert.equal(contributionOf(update, 'Service/shop/orders').chains.length, 1);
    assert.equal(update.services.get('ServiceEntry/shop/a-orders'), undefined);
    assert.deepEqual(translator.coverage.uncarried('shop/wp'), [
      'Service shop/twin port 20880: address 10.96.0.1/32 is carried for Service shop/orders',
    ]);
  });
});
