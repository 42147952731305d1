// The ambient codes over files: AER0014 (an RPC service in an ambient namespace without a waypoint), AER0015 (an
// EnvoyFilter selecting waypoint pods), AER0016 (context WAYPOINT) and AER0017 (a waypoint image without the
// protocol's proxy), each with cases that report and cases that do not, and the advice worded by
// --waypoint-envoyfilters.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatSarif } from '../../src/analyze/format/sarif.ts';
import { analyzeText, codesOf, serviceEntry, withCode } from './support.ts';

const namespace = (labels: Record<string, string>) => `apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: ${JSON.stringify(labels)}}
---
`;
const AMBIENT = namespace({ 'istio.io/dataplane-mode': 'ambient' });

function gateway(o: { name?: string; className?: string; addressed?: boolean; image?: string } = {}): string {
  const annotations = o.image ? `, annotations: {sidecar.istio.io/proxyImage: "${o.image}"}` : '';
  const status = o.addressed === false ? '' : 'status: {addresses: [{type: IPAddress, value: 10.96.0.20}]}\n';
  return `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: ${o.name ?? 'waypoint'}, namespace: shop${annotations}}
spec:
  gatewayClassName: ${o.className ?? 'istio-waypoint'}
  listeners: [{name: mesh, port: 15008, protocol: HBONE}]
${status}---
`;
}

const BOUND = { 'istio.io/use-waypoint': 'waypoint' };
const WAYPOINT_ON = { waypointFilters: true };

function envoyFilter(spec: string): string {
  return `apiVersion: networking.istio.io/v1alpha3
kind: EnvoyFilter
metadata: {name: rpc-audit, namespace: shop}
spec:
${spec}
  configPatches:
  - applyTo: NETWORK_FILTER
    match:
      context: SIDECAR_INBOUND
      listener: {name: main_internal, filterChain: {filter: {name: envoy.filters.network.tcp_proxy}}}
    patch: {operation: INSERT_BEFORE, value: {name: envoy.filters.network.rbac}}
---
`;
}

describe('AER0014 AmbientServiceWithoutWaypoint', () => {
  it('reports a handled service of an ambient namespace with no waypoint; flag off: turn it on and bind', () => {
    const m = withCode(analyzeText(AMBIENT + serviceEntry('orders', ['tcp-dubbo:20880'])), 'AER0014');
    assert.equal(m.length, 1);
    assert.deepEqual(
      [m[0]?.ref, m[0]?.path],
      [{ kind: 'ServiceEntry', namespace: 'shop', name: 'orders' }, 'metadata.labels'],
    );
    assert.match(m[0]!.message, /neither it nor namespace shop has istio.io\/use-waypoint/);
    assert.match(m[0]!.message, /port\(s\) "tcp-dubbo" is plain TCP/);
    assert.match(
      m[0]!.message,
      /turn on --waypoint-envoyfilters and bind it to waypoint shop\/waypoint: label it or namespace shop istio.io\/use-waypoint=waypoint after creating it \(istioctl waypoint apply -n shop\)$/,
    );
  });

  it('flag on: names the waypoint to bind to, without creating it when its Gateway exists', () => {
    const text = AMBIENT + gateway() + serviceEntry('orders', ['tcp-dubbo:20880']);
    const m = withCode(analyzeText(text, WAYPOINT_ON), 'AER0014');
    assert.equal(m.length, 1);
    assert.match(
      m[0]!.message,
      /; bind it to waypoint shop\/waypoint: label it or namespace shop istio.io\/use-waypoint=waypoint$/,
    );
    assert.doesNotMatch(m[0]!.message, /turn on/);
  });

  it('names a waypoint the labels name but istiod does not use, once (generation warns the same)', () => {
    const labels = { 'istio.io/use-waypoint': 'w' };
    const text =
      AMBIENT +
      gateway({ name: 'w', addressed: false }) +
      serviceEntry('orders', ['tcp-dubbo:20880'], { labels });
    const messages = analyzeText(text, WAYPOINT_ON);
    assert.deepEqual(codesOf(messages), ['AER0014']);
    assert.match(
      messages[0]!.message,
      /names waypoint shop\/w, which istiod does not use \(its Gateway has no status.addresses\)/,
    );
    assert.match(messages[0]!.message, /; make waypoint shop\/w usable/);
  });

  it('says an opted-out service is opted out', () => {
    const labels = { 'istio.io/use-waypoint': 'none' };
    const text = AMBIENT + serviceEntry('orders', ['tcp-dubbo:20880'], { labels });
    assert.match(withCode(analyzeText(text), 'AER0014')[0]!.message, /its istio.io\/use-waypoint is none/);
  });

  it('is silent for a bound service, a sidecar namespace, no Namespace read, and a service nothing handles', () => {
    const bound = AMBIENT + gateway() + serviceEntry('orders', ['tcp-dubbo:20880'], { labels: BOUND });
    assert.deepEqual(withCode(analyzeText(bound), 'AER0014'), []);
    assert.deepEqual(withCode(analyzeText(bound, WAYPOINT_ON), 'AER0014'), []);
    const sidecar = namespace({ 'istio-injection': 'enabled' }) + serviceEntry('orders', ['tcp-dubbo:20880']);
    assert.deepEqual(codesOf(analyzeText(sidecar)), []);
    assert.deepEqual(codesOf(analyzeText(serviceEntry('orders', ['tcp-dubbo:20880']))), []);
    assert.deepEqual(withCode(analyzeText(AMBIENT + serviceEntry('orders', ['tcp:7000'])), 'AER0014'), []);
  });
});

describe('AER0015 EnvoyFilterSelectsWaypoint', () => {
  const selector = '  workloadSelector: {labels: {gateway.networking.k8s.io/gateway-name: waypoint}}';

  it("reports a workloadSelector on a waypoint's gateway-name label without targetRefs, as an error", () => {
    const messages = analyzeText(gateway() + envoyFilter(selector));
    assert.deepEqual(codesOf(messages), ['AER0015']);
    const m = messages[0]!;
    assert.equal(m.code.severity, 'error');
    assert.deepEqual(m.ref, { kind: 'EnvoyFilter', namespace: 'shop', name: 'rpc-audit' });
    assert.equal(m.path, 'spec.workloadSelector.labels.gateway.networking.k8s.io/gateway-name');
    assert.match(m.message, /pods of waypoint shop\/waypoint .* never attaches; use spec.targetRefs/);
  });

  it('is silent with targetRefs, for a Gateway of another class, another label, or no such Gateway', () => {
    const refs = `${selector}\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: waypoint}]`;
    assert.deepEqual(codesOf(analyzeText(gateway() + envoyFilter(refs))), []);
    assert.deepEqual(codesOf(analyzeText(gateway({ className: 'istio' }) + envoyFilter(selector))), []);
    const other = '  workloadSelector: {labels: {app: orders}}';
    assert.deepEqual(codesOf(analyzeText(gateway() + envoyFilter(other))), []);
    assert.deepEqual(codesOf(analyzeText(envoyFilter(selector))), []);
  });
});

describe('AER0016 EnvoyFilterWaypointContext', () => {
  const refs = '  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: waypoint}]';

  it('reports each patch with context WAYPOINT, as an error, at its match.context', () => {
    const text = gateway() + envoyFilter(refs).replace('context: SIDECAR_INBOUND', 'context: WAYPOINT');
    const messages = analyzeText(text);
    assert.deepEqual(codesOf(messages), ['AER0016']);
    assert.equal(messages[0]!.code.severity, 'error');
    assert.equal(messages[0]!.path, 'spec.configPatches[0].match.context');
    assert.match(messages[0]!.message, /never runs; use SIDECAR_INBOUND with spec.targetRefs/);
  });

  it('is silent for SIDECAR_INBOUND', () => {
    assert.deepEqual(codesOf(analyzeText(gateway() + envoyFilter(refs))), []);
  });
});

describe('AER0017 WaypointLacksProtocolProxy', () => {
  const mpp = 'ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2';
  const metaProtocol = (extra: string, o = {}) =>
    analyzeText(extra + serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880'], { labels: BOUND }), o);

  it('reports a MetaProtocol port on an istio-proxy waypoint; flag off: turn it on and change the image', () => {
    const m = withCode(metaProtocol(gateway()), 'AER0017');
    assert.equal(m.length, 1);
    assert.equal(m[0]!.path, 'spec.ports[0].name');
    assert.match(
      m[0]!.message,
      /bound to waypoint shop\/waypoint, whose image istio-proxy has no envoy.filters.network.meta_protocol_proxy/,
    );
    assert.match(
      m[0]!.message,
      /; turn on --waypoint-envoyfilters and run the waypoint on a MetaProtocol proxy image/,
    );
  });

  it("flag on: the image advice only, and generation's warning for the port is not reported again", () => {
    const messages = metaProtocol(gateway(), WAYPOINT_ON);
    assert.deepEqual(codesOf(messages), ['AER0017']);
    assert.equal(messages.length, 1);
    assert.match(messages[0]!.message, /; run the waypoint on a MetaProtocol proxy image/);
  });

  it('says nothing for a service bound to our own waypoint (aeraki-waypoint): its Gateway status does', () => {
    const own = gateway({ className: 'aeraki-waypoint' });
    assert.deepEqual(withCode(metaProtocol(own), 'AER0017'), []);
    assert.deepEqual(withCode(metaProtocol(own, WAYPOINT_ON), 'AER0017'), []);
  });

  it('reports a Kafka port on any image', () => {
    const text =
      gateway({ image: 'docker.io/envoyproxy/envoy-contrib:v1.36.0' }) +
      serviceEntry('events', ['tcp-kafka:9092'], { labels: BOUND });
    const m = withCode(analyzeText(text, WAYPOINT_ON), 'AER0017');
    assert.equal(m.length, 1);
    assert.match(m[0]!.message, /has no envoy.filters.network.kafka_broker: port "tcp-kafka"/);
    assert.match(m[0]!.message, /istio.io\/use-waypoint=none/);
  });

  it('is silent on a MetaProtocol image, for a Dubbo port, and for an unbound service', () => {
    const known = { ...WAYPOINT_ON, metaProtocolImages: ['ghcr.io/aeraki-mesh/meta-protocol-proxy'] };
    assert.deepEqual(codesOf(metaProtocol(gateway({ image: mpp }), known)), []);
    const dubbo = gateway() + serviceEntry('orders', ['tcp-dubbo:20880'], { labels: BOUND });
    assert.deepEqual(codesOf(analyzeText(dubbo, WAYPOINT_ON)), []);
    const unbound = gateway() + serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880']);
    assert.deepEqual(withCode(analyzeText(unbound), 'AER0017'), []);
  });

  it('gives SARIF results with rules for the new codes', () => {
    const messages = [
      ...metaProtocol(gateway()),
      ...analyzeText(AMBIENT + serviceEntry('orders', ['tcp-dubbo:20880'])),
    ];
    const sarif = JSON.parse(
      formatSarif(messages, {
        version: '0.1.0',
        informationUri: 'https://example.invalid/',
        baseDirectory: '/',
      }),
    ) as {
      runs: { results: { ruleId: string; level: string }[] }[];
    };
    assert.deepEqual(sarif.runs[0]!.results.map((r) => [r.ruleId, r.level]).sort(), [
      ['AER0014', 'warning'],
      ['AER0017', 'warning'],
    ]);
  });
});
