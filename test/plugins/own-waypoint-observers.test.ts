// Our own waypoint, ZooKeeper and Kafka (plugins/zookeeper, plugins/kafka own-waypoint.ts): the observe-only filter,
// then tcp_proxy to the host's cluster; kafka_broker only on an Envoy contrib image.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createKafkaGenerator } from '../../src/plugins/kafka/index.ts';
import { createZooKeeperGenerator } from '../../src/plugins/zookeeper/index.ts';
import { checkedChain, issueLines, ownContext, storeOf } from './own-waypoint-support.ts';

const SE = (name: string, port: string) => `
apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata: {name: ${name}, namespace: data}
spec:
  hosts: [${name}.data.svc.cluster.local]
  addresses: [240.240.2.1]
  ports: [${port}]
---`;

describe('own waypoint: zookeeper and kafka', () => {
  it('zookeeper_proxy (stats as the cluster) then tcp_proxy to the host cluster', () => {
    const generator = createZooKeeperGenerator();
    const store = storeOf(SE('zk', '{number: 2181, name: tcp-zookeeper}'));
    const { ctx, clusters } = ownContext(store, generator, 'data', 'zk');
    const result = generator.generateOwnWaypoint!(ctx);
    const chain = checkedChain(result);
    const cluster = 'outbound|2181||zk.data.svc.cluster.local';
    assert.deepEqual(chain.filters, [
      {
        name: 'envoy.filters.network.zookeeper_proxy',
        typed_config: {
          '@type': 'type.googleapis.com/envoy.extensions.filters.network.zookeeper_proxy.v3.ZooKeeperProxy',
          stat_prefix: cluster,
        },
      },
      {
        name: 'envoy.filters.network.tcp_proxy',
        typed_config: {
          '@type': 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy',
          stat_prefix: cluster,
          cluster,
        },
      },
    ]);
    assert.equal(chain.routes, undefined);
    assert.deepEqual(clusters, [cluster]);
    assert.deepEqual(result.issues, []);
  });

  it('kafka_broker as a TypedStruct then tcp_proxy, on an Envoy contrib image only', () => {
    const generator = createKafkaGenerator();
    const store = storeOf(SE('kafka', '{number: 9092, name: tcp-kafka}'));
    const cluster = 'outbound|9092||kafka.data.svc.cluster.local';
    const contrib = ownContext(store, generator, 'data', 'kafka', 0, 'envoy-contrib');
    const result = generator.generateOwnWaypoint!(contrib.ctx);
    const chain = checkedChain(result);
    assert.deepEqual(chain.filters[0], {
      name: 'envoy.filters.network.kafka_broker',
      typed_config: {
        '@type': 'type.googleapis.com/xds.type.v3.TypedStruct',
        type_url: 'type.googleapis.com/envoy.extensions.filters.network.kafka_broker.v3.KafkaBroker',
        value: { stat_prefix: cluster },
      },
    });
    assert.equal(chain.filters[1]?.['name'], 'envoy.filters.network.tcp_proxy');
    assert.deepEqual(result.issues, []);

    for (const kind of ['envoy', 'metaprotocol'] as const) {
      const { ctx, clusters } = ownContext(store, generator, 'data', 'kafka', 0, kind);
      const none = generator.generateOwnWaypoint!(ctx);
      assert.ok(none.ok);
      assert.equal(none.value, undefined, kind);
      assert.deepEqual(clusters, [], 'no chain, no cluster');
      const image = ctx.image.ref;
      assert.deepEqual(issueLines(none.issues), [
        `ServiceEntry data/kafka: spec.ports[0].name: ServiceEntry data/kafka port 9092 ("tcp-kafka") is bound to waypoint data/waypoint, whose image ${image} (${kind}) has no envoy.filters.network.kafka_broker: the waypoint does not carry this port (its aeraki.io/proxy-image must name an Envoy contrib image such as docker.io/envoyproxy/envoy:contrib-v1.38.4)`,
      ]);
    }
  });
});
