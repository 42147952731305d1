import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseIstioProtocol,
  serviceEntryPortProtocol,
  servicePortProtocol,
  waypointChainKinds,
  waypointChainName,
  waypointVipClusterName,
  WAYPOINT_LISTENER,
} from '../../../src/model/ambient/names.ts';

const HOST = 'orders.shop.svc.cluster.local';

describe('waypoint names (istiod listener_waypoint.go, cluster_waypoint.go)', () => {
  it('the listener is main_internal', () => {
    assert.equal(WAYPOINT_LISTENER, 'main_internal');
  });

  it('filter chains are inbound-vip|<port>|tcp|<host> and inbound-vip|<port>|http|<host>', () => {
    assert.equal(
      waypointChainName('tcp', HOST, 20880),
      'inbound-vip|20880|tcp|orders.shop.svc.cluster.local',
    );
    assert.equal(
      waypointChainName('http', HOST, 8080),
      'inbound-vip|8080|http|orders.shop.svc.cluster.local',
    );
  });

  it('VIP clusters: without a subset the chain name, with one `tcp/<subset>`', () => {
    assert.equal(
      waypointVipClusterName('tcp', HOST, 20880),
      'inbound-vip|20880|tcp|orders.shop.svc.cluster.local',
    );
    assert.equal(
      waypointVipClusterName('tcp', HOST, 20880, 'v1'),
      'inbound-vip|20880|tcp/v1|orders.shop.svc.cluster.local',
    );
    assert.equal(
      waypointVipClusterName('http', 'api.example.com', 80, 'canary'),
      'inbound-vip|80|http/canary|api.example.com',
    );
    assert.equal(waypointVipClusterName('tcp', HOST, 20880, ''), waypointVipClusterName('tcp', HOST, 20880));
  });
});

describe('Istio port protocols and the chains a waypoint builds', () => {
  it('protocol.Parse is case-insensitive and sniffs what it does not know', () => {
    assert.equal(parseIstioProtocol('TCP'), 'TCP');
    assert.equal(parseIstioProtocol('Redis'), 'Redis');
    assert.equal(parseIstioProtocol('dubbo'), 'UnsupportedProtocol');
    assert.equal(parseIstioProtocol(''), 'UnsupportedProtocol');
  });

  it('a ServiceEntry port is read from its protocol field', () => {
    assert.equal(serviceEntryPortProtocol('tcp'), 'TCP');
    assert.equal(serviceEntryPortProtocol('HTTP'), 'HTTP');
    assert.equal(serviceEntryPortProtocol(undefined), 'UnsupportedProtocol');
  });

  it('a Service port is read from its name up to the first dash, or its appProtocol', () => {
    assert.equal(servicePortProtocol(20880, 'tcp-dubbo', 'TCP'), 'TCP');
    assert.equal(servicePortProtocol(20880, 'tcp-metaprotocol-dubbo', 'TCP'), 'TCP');
    assert.equal(servicePortProtocol(20880, 'dubbo', 'TCP'), 'UnsupportedProtocol');
    assert.equal(servicePortProtocol(6379, 'redis', 'TCP'), 'Redis');
    assert.equal(servicePortProtocol(8080, 'Http-web', 'TCP'), 'HTTP');
    assert.equal(servicePortProtocol(8080, 'grpc-web-x', 'TCP'), 'GRPC-Web');
    assert.equal(servicePortProtocol(53, 'dns', 'UDP'), 'UDP');
    assert.equal(servicePortProtocol(3306, 'db', 'TCP'), 'TCP');
    assert.equal(servicePortProtocol(9000, 'web', 'TCP', 'http'), 'HTTP');
    assert.equal(servicePortProtocol(9000, 'tcp-web', 'TCP', 'kubernetes.io/h2c'), 'HTTP2');
    assert.equal(servicePortProtocol(9000, 'tcp-web', 'TCP', 'kubernetes.io/ws'), 'HTTP');
    assert.equal(servicePortProtocol(9000, 'tcp-web', 'TCP', 'kubernetes.io/wss'), 'HTTPS');
  });

  it('sniffed ports get both chains, HTTP-like ports only http, UDP none, the rest only tcp', () => {
    assert.deepEqual(waypointChainKinds('UnsupportedProtocol'), ['tcp', 'http']);
    assert.deepEqual(waypointChainKinds('GRPC'), ['http']);
    assert.deepEqual(waypointChainKinds('HTTP2'), ['http']);
    assert.deepEqual(waypointChainKinds('UDP'), []);
    for (const p of ['TCP', 'TLS', 'HTTPS', 'Mongo', 'Redis', 'MySQL'] as const) {
      assert.deepEqual(waypointChainKinds(p), ['tcp'], p);
    }
  });
});
