// AER0001 PortNameNearMiss and AER0002 WellKnownRpcPortUnnamed: ports that probably meant a protocol.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance, nearMissProtocol } from '../../src/analyze/offline/port-near-miss.ts';
import { createProtocolNames } from '../../src/plugins/registry.ts';
import { analyzeText, codesOf, serviceEntry, withCode } from './support.ts';

const HANDLED = new Set(['dubbo', 'thrift', 'metaprotocol', 'redis', 'kafka', 'zookeeper']);
const DETECTED = new Set<string>(createProtocolNames().names);

describe('AER0001 PortNameNearMiss', () => {
  it('finds the protocol in the wrong segment, glued, or misspelt', () => {
    for (const [name, protocol] of [
      ['dubbo-tcp', 'dubbo'],
      ['tcp_dubbo', 'dubbo'],
      ['tcpdubbo', 'dubbo'],
      ['tcp-thirft', 'thrift'],
      ['tcp-dubo', 'dubbo'],
      ['tcp-metaprotocl-dubbo', 'metaprotocol'],
    ] as const) {
      assert.equal(nearMissProtocol(name, HANDLED, DETECTED), protocol, name);
    }
  });

  it('leaves alone names that select a protocol and names that look like none', () => {
    for (const name of [
      'tcp-dubbo',
      'tcp-metaprotocol-dubbo',
      'tcp',
      'http',
      'grpc-web',
      'tcp-postgres',
      '',
      'tcp-mongo',
    ]) {
      assert.equal(nearMissProtocol(name, HANDLED, DETECTED), undefined, name);
    }
    assert.equal(editDistance('thirft', 'thrift'), 1);
    assert.equal(editDistance('dubbo', 'dubbo'), 0);
  });

  it('reports the port, with the name to use, instead of the generic unknown-segment warning', () => {
    const messages = analyzeText(serviceEntry('orders', ['tcp-dubbo:20881', 'tcp-thirft:9090']));
    assert.deepEqual(codesOf(messages), ['AER0001']);
    const [m] = withCode(messages, 'AER0001');
    assert.equal(m?.path, 'spec.ports[1].name');
    assert.deepEqual(m?.ref, { kind: 'ServiceEntry', namespace: 'shop', name: 'orders' });
    assert.match(m?.message ?? '', /"tcp-thrift"/);
  });

  it('covers only the unknown-segment warning: another issue of the same port is still reported', () => {
    const messages = analyzeText(
      serviceEntry('orders', ['dubbo-tcp:20880', 'dubbo-tcp:20881', 'tcp-dubbo:20882']),
    );
    assert.deepEqual(
      messages.map((m) => `${m.code.code} ${m.path}`),
      ['AER0001 spec.ports[0].name', 'AER0001 spec.ports[1].name', 'AER0009 spec.ports[1].name'],
    );
  });

  it('says nothing about well-named ports', () => {
    assert.deepEqual(analyzeText(serviceEntry('orders', ['tcp-dubbo:20880', 'http:8080'])), []);
  });
});

describe('AER0002 WellKnownRpcPortUnnamed', () => {
  it('reports 20880 and 9090 named tcp or not named', () => {
    const messages = analyzeText(serviceEntry('orders', ['tcp-redis:6379', 'tcp:20880', ':9090']));
    assert.deepEqual(codesOf(messages), ['AER0002']);
    assert.deepEqual(
      withCode(messages, 'AER0002').map((m) => [m.path, /"tcp-(\w+)"/.exec(m.message)?.[1]]),
      [
        ['spec.ports[1].name', 'dubbo'],
        ['spec.ports[2].name', 'thrift'],
      ],
    );
  });

  it('says nothing when the port is named after a protocol or is another number', () => {
    const messages = analyzeText(serviceEntry('orders', ['tcp-dubbo:20880', 'http:9090', 'tcp:20881']));
    assert.deepEqual(withCode(messages, 'AER0002'), []);
  });
});
