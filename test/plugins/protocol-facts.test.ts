// The protocol facts the plugins declare (Generator.protocols and Generator.facts) are the ones model/protocol.ts
// detects with (handed down by the plugin registry), analyze checks and /debug/protocols serves to the debug page:
// a name or fact added in one plugin is seen by all three, and none of them keeps a list of its own.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { contribProxyAnalyzer } from '../../src/analyze/live/contrib-proxy.ts';
import { wellKnownRpcPortAnalyzer } from '../../src/analyze/offline/rpc-port-unnamed.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import type { Generator } from '../../src/model/generator.ts';
import { protocolNames } from '../../src/model/protocol.ts';
import { ok } from '../../src/model/result.ts';
import { isEligible } from '../../src/vip/plan.ts';
import { protocolFactsOf, protocolsDocument } from '../../src/model/protocol-facts.ts';
import { createGenerators, createProtocolNames } from '../../src/plugins/registry.ts';
import { serviceEntry as entry, storeOf } from '../support/builders.ts';
import { analyzeText, inputOf, withCode } from '../analyze/support.ts';
import { cluster, generatedFor, input, pod, PROXYV2, serviceEntry } from '../analyze/live/support.ts';

const PAGE_DIR = new URL('../../src/ops/debug-page/', import.meta.url);
const view = await import(new URL('view.js', PAGE_DIR).href);

const generators = createGenerators();
const facts = protocolFactsOf(generators);
const declared = generators.flatMap((g) => g.protocols);
const { names: PROTOCOLS, detect: detectProtocol } = createProtocolNames();

describe('protocol facts: declared by the plugins', () => {
  it('each plugin declares facts only of its own protocols, one entry each; no protocol twice', () => {
    for (const g of generators) {
      const names = (g.facts ?? []).map((f) => f.name);
      assert.deepEqual(
        names.filter((n) => !g.protocols.includes(n)),
        [],
        g.name,
      );
      assert.equal(new Set(names).size, names.length, g.name);
    }
    assert.equal(new Set(declared).size, declared.length);
    assert.deepEqual(
      facts.map((f) => f.name),
      declared,
    );
  });

  it('Kafka is the contrib filter; Dubbo and Thrift have their well-known ports', () => {
    assert.deepEqual(
      facts.filter((f) => f.contribFilter).map((f) => [f.name, f.contribFilter]),
      [['kafka', 'envoy.filters.network.kafka_broker']],
    );
    assert.deepEqual(
      facts.filter((f) => f.wellKnownPorts).map((f) => [f.name, f.wellKnownPorts]),
      [
        ['dubbo', [20880]],
        ['thrift', [9090]],
      ],
    );
  });
});

describe('protocol facts: model, analyze and the debug page read the same', () => {
  it('the registry detects every declared name; it adds only names Aeraki recognises but no plugin handles', () => {
    for (const name of declared) assert.equal(detectProtocol(`tcp-${name}`), name);
    // Aeraki model/protocol/instance.go recognises Mongo and MySQL; no plugin here handles them.
    assert.deepEqual(
      PROTOCOLS.filter((p) => !declared.includes(p)),
      ['mongo', 'mysql'],
    );
  });

  it('/debug/protocols serves the detected names and the facts; the page detects with them', () => {
    const doc = protocolsDocument(generators, createProtocolNames());
    assert.deepEqual(doc.plugins, facts);
    assert.deepEqual(doc.detected, [...PROTOCOLS]);
    for (const name of PROTOCOLS) {
      assert.equal(view.protocolOf(`tcp-${name}`, doc.detected), detectProtocol(`tcp-${name}`));
    }
    // A name the document gains is one the page detects, with no change to the script.
    assert.equal(view.protocolOf('tcp-newproto', doc.detected), undefined);
    assert.equal(view.protocolOf('tcp-newproto', [...doc.detected, 'newproto']), 'newproto');
  });

  it('analyze gets the plugins facts, and checks the ports and contrib filters they declare', () => {
    const text = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: { name: b, namespace: web }
spec:
  hosts: [b.web.svc.cluster.local]
  resolution: STATIC
  ports: [{number: 9092, name: tcp, protocol: TCP}]
`;
    const given = inputOf(text);
    assert.deepEqual(given.protocols, facts);
    assert.deepEqual(withCode(analyzeText(text), 'AER0002'), []);
    // Kafka declaring 9092 well-known: AER0002 names it, with no change to analyze.
    const withPort = given.protocols.map((f) => (f.name === 'kafka' ? { ...f, wellKnownPorts: [9092] } : f));
    const messages = wellKnownRpcPortAnalyzer.analyze({ ...given, protocols: withPort });
    assert.deepEqual(
      messages.map((m) => m.message.includes('"tcp-kafka"')),
      [true],
    );
  });

  it('the contrib check follows the declaration', () => {
    const raws = [
      serviceEntry({
        name: 'kafka',
        host: 'kafka.shop.svc.cluster.local',
        portName: 'tcp-kafka',
        port: 9092,
        selector: { app: 'kafka' },
      }),
    ];
    const c = cluster({ pods: [pod('shop', 'kafka-0', { app: 'kafka' }, PROXYV2)] });
    const base = input({ raws, generated: generatedFor('ServiceEntry/shop/kafka', 9092), cluster: c });
    assert.equal(contribProxyAnalyzer.analyze(base).length, 1);
    const core = base.protocols!.map((f) => (f.name === 'kafka' ? { name: f.name } : f));
    assert.deepEqual(contribProxyAnalyzer.analyze({ ...base, protocols: core }), []);
  });
});

/** A plugin of a protocol nothing here knows: one draft per port it is given. */
function newPlugin(): Generator & { seen: number[] } {
  const seen: number[] = [];
  return {
    name: 'newproto',
    protocols: ['newproto'],
    facts: [{ name: 'newproto', wellKnownPorts: [7000] }],
    seen,
    generateSidecar: (ctx) => {
      seen.push(ctx.port.number);
      return ok([{ name: `newproto-${ctx.port.number}`, spec: { configPatches: [] } }]);
    },
  };
}

describe('protocol facts: a new detection name', () => {
  it('a plugin added to the registry is detected, generated, listed and eligible with no edit to model/', () => {
    const plugin = newPlugin();
    const withNew = [...generators, plugin];
    const names = createProtocolNames(withNew);
    assert.equal(createProtocolNames().detect('tcp-newproto'), undefined);
    assert.equal(names.detect('tcp-NewProto-x'), 'newproto');
    assert.equal(names.unknownTcpSegment('tcp-newproto'), undefined);
    assert.deepEqual(protocolsDocument(withNew, names).detected, [
      ...PROTOCOLS.slice(0, -2),
      'newproto',
      'mongo',
      'mysql',
    ]);
    assert.equal(view.protocolOf('tcp-newproto', protocolsDocument(withNew, names).detected), 'newproto');

    const se = entry('ns', 'svc', {
      hosts: ['svc.ns.svc.cluster.local'],
      addresses: ['10.0.0.9'],
      ports: [
        { number: 7000, name: 'tcp-newproto' },
        { number: 7001, name: 'tcp-other' },
      ],
    });
    const out = generateAll(storeOf([se]), withNew, { namespaceScope: false, protocolNames: names });
    assert.deepEqual(plugin.seen, [7000]);
    assert.deepEqual(
      out.objects.map((o) => o.metadata.name),
      ['newproto-7000'],
    );
    assert.deepEqual(
      out.unhandledPorts.map((p) => [p.protocol, p.warning.path]),
      [['unknown', 'spec.ports[1].name']],
    );
    assert.ok(
      out.unhandledPorts[0]?.warning.message.includes(
        'handled: dubbo, kafka, metaprotocol, newproto, redis, thrift, zookeeper',
      ),
    );
    const vipEntry = {
      kind: 'ServiceEntry' as const,
      metadata: { namespace: 'ns', name: 'svc' },
      resolution: 'STATIC',
      addresses: [],
      portNames: ['tcp-newproto'],
    };
    assert.equal(isEligible(vipEntry, new Set(withNew.flatMap((g) => g.protocols))), true);
    assert.equal(isEligible(vipEntry, new Set(declared)), false);
  });

  it('model/protocol.ts keeps no list: with no names handed down it detects nothing, and names none', () => {
    const none = protocolNames([]);
    for (const name of PROTOCOLS) {
      assert.equal(none.detect(`tcp-${name}`), undefined, name);
      assert.equal(none.unknownTcpSegment(`tcp-${name}`), name, name);
    }
    const model = new URL('../../src/model/', import.meta.url);
    for (const file of ['protocol.ts', 'protocol-facts.ts']) {
      const text = readFileSync(new URL(file, model), 'utf8');
      for (const name of PROTOCOLS) {
        assert.doesNotMatch(text, new RegExp(`['"]${name}['"]`, 'i'), `${file} names ${name}`);
      }
    }
  });

  it('a name no port name could select is refused where it is declared', () => {
    for (const bad of ['', 'tcp-x']) assert.throws(() => protocolNames([bad as 'x']), /second segment/);
    assert.throws(() => createProtocolNames([{ ...newPlugin(), protocols: ['Upper' as 'upper'] }]), /Upper/);
  });
});
