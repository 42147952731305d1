// Reading ambient inputs tolerantly: Namespaces, Gateway API Gateways (v1, v1beta1) and GatewayClasses reduced to
// the binding's projections; a wrong field is an issue naming object and field, never a throw; near misses warn.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ambientKindOf, ambientNearMiss, parseAmbientObject } from '../../../src/model/parse/ambient.ts';
import { formatIssue, severityOf } from '../../../src/model/result.ts';

const gateway = (extra: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: {
    namespace: 'shop',
    name: 'waypoint',
    labels: { 'istio.io/waypoint-for': 'all', other: 'x' },
    annotations: { 'sidecar.istio.io/proxyImage': 'reg.example/proxy:1', 'kubectl.x/last': '{}' },
  },
  spec: {
    gatewayClassName: 'istio-waypoint',
    listeners: [
      {
        name: 'mesh',
        port: 15008,
        protocol: 'HBONE',
        allowedRoutes: {
          namespaces: {
            from: 'Selector',
            selector: {
              matchLabels: { team: 'a' },
              matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }],
            },
          },
        },
      },
    ],
    ...spec,
  },
  status: { addresses: [{ type: 'IPAddress', value: '10.0.0.9' }] },
  ...extra,
});

const messages = (raw: unknown) => {
  const res = parseAmbientObject(raw);
  assert.ok(res !== undefined);
  return { ok: res.ok, issues: res.issues.map((i) => `${severityOf(i)} ${formatIssue(i)}`) };
};

describe('parseAmbientObject', () => {
  it('reads a waypoint Gateway into the WaypointGateway projection (fields used only)', () => {
    const res = parseAmbientObject(gateway());
    assert.ok(res?.ok);
    assert.deepEqual(res.value, {
      kind: 'KubernetesGateway',
      value: {
        namespace: 'shop',
        name: 'waypoint',
        className: 'istio-waypoint',
        waypointFor: 'all',
        proxyImage: 'reg.example/proxy:1',
        addressed: true,
        listeners: [
          {
            port: 15008,
            protocol: 'HBONE',
            allowedNamespaces: {
              from: 'Selector',
              selector: {
                matchLabels: { team: 'a' },
                matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }],
              },
            },
          },
        ],
      },
    });
    assert.deepEqual(res.issues, []);
  });

  it('reads v1beta1 too; a Gateway without status.addresses is not addressed, with statusKnown false it is', () => {
    const raw = {
      ...gateway({ apiVersion: 'gateway.networking.k8s.io/v1beta1' }),
      status: { addresses: [] },
    };
    const res = parseAmbientObject(raw);
    assert.ok(res?.ok && res.value.kind === 'KubernetesGateway');
    assert.equal(res.value.value.addressed, false);
    const { status: _s, ...noStatus } = gateway();
    const mcp = parseAmbientObject(noStatus, { statusKnown: false });
    assert.ok(mcp?.ok && mcp.value.kind === 'KubernetesGateway');
    assert.equal(mcp.value.value.addressed, true);
  });

  it('reads a Namespace (name and labels) and a GatewayClass (its waypoint-for and inbound binding)', () => {
    const ns = parseAmbientObject({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shop', labels: { 'istio.io/dataplane-mode': 'ambient' } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
    assert.deepEqual(ns?.ok && ns.value, {
      kind: 'Namespace',
      value: { name: 'shop', labels: { 'istio.io/dataplane-mode': 'ambient' } },
    });
    const gc = parseAmbientObject({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: {
        name: 'istio-waypoint',
        labels: { 'istio.io/waypoint-for': 'service' },
        annotations: { 'ambient.istio.io/waypoint-inbound-binding': 'PROXY/15088' },
      },
      spec: { controllerName: 'istio.io/mesh-controller' },
    });
    assert.deepEqual(gc?.ok && gc.value, {
      kind: 'GatewayClass',
      value: { name: 'istio-waypoint', waypointFor: 'service', inboundBinding: 'PROXY/15088' },
    });
  });

  it('a bad Gateway is rejected with issues naming object and field, and nothing throws', () => {
    assert.deepEqual(
      messages(
        gateway(
          {},
          {
            gatewayClassName: 7,
            listeners: [
              { port: 'x', protocol: 'HBONE' },
              { port: 15008 },
              'nope',
              { port: 1, protocol: 'TCP', allowedRoutes: { namespaces: { from: 3, selector: [] } } },
            ],
          },
        ),
      ),
      {
        ok: false,
        issues: [
          'error Gateway shop/waypoint: spec.gatewayClassName: expected a string, got number 7',
          'error Gateway shop/waypoint: spec.listeners[0].port: expected a number, got string "x"',
          'error Gateway shop/waypoint: spec.listeners[1].protocol: required field is missing',
          'error Gateway shop/waypoint: spec.listeners[2]: expected an object, got string "nope"',
          'error Gateway shop/waypoint: spec.listeners[3].allowedRoutes.namespaces.from: expected a string, got number 3',
          'error Gateway shop/waypoint: spec.listeners[3].allowedRoutes.namespaces.selector: expected an object, got a list',
        ],
      },
    );
    assert.deepEqual(
      messages({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: {} }),
      {
        ok: false,
        issues: [
          'error Gateway default/: metadata.name: required field is missing',
          'error Gateway default/: spec: required field is missing',
        ],
      },
    );
    assert.deepEqual(
      messages({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a', labels: { x: 1 } } }),
      { ok: false, issues: ['error Namespace a: metadata.labels.x: expected a string, got number 1'] },
    );
    for (const bad of [
      null,
      'x',
      [],
      { apiVersion: 'v1', kind: 'Namespace', metadata: 'm' },
      gateway({ spec: 5 }),
    ]) {
      assert.doesNotThrow(() => parseAmbientObject(bad));
    }
  });

  it('a malformed status is a warning, read as no address (the Gateway is kept)', () => {
    const res = parseAmbientObject(gateway({ status: { addresses: 'x' } }));
    assert.ok(res?.ok && res.value.kind === 'KubernetesGateway');
    assert.equal(res.value.value.addressed, false);
    assert.deepEqual(
      res.issues.map((i) => `${severityOf(i)} ${formatIssue(i)}`),
      [
        'warning Gateway shop/waypoint: status.addresses: expected a list, got string "x"; read as no address',
      ],
    );
  });

  it('other kinds are not ambient inputs: the Istio Gateway, a v1alpha2 Gateway, a Namespace of another version', () => {
    assert.equal(ambientKindOf({ apiVersion: 'networking.istio.io/v1', kind: 'Gateway' }), undefined);
    assert.equal(
      ambientKindOf({ apiVersion: 'gateway.networking.k8s.io/v1alpha2', kind: 'Gateway' }),
      undefined,
    );
    assert.equal(ambientKindOf({ apiVersion: 'v2', kind: 'Namespace' }), undefined);
    assert.equal(parseAmbientObject({ apiVersion: 'networking.istio.io/v1', kind: 'Gateway' }), undefined);
  });
});

describe('ambientNearMiss', () => {
  const near = (raw: unknown) => {
    const i = ambientNearMiss(raw);
    return i && `${severityOf(i)} ${formatIssue(i)}`;
  };
  it('names what was probably meant', () => {
    const md = { namespace: 'shop', name: 'w' };
    assert.equal(
      near({ apiVersion: 'gateway.networking.k8s.io/v1alpha2', kind: 'Gateway', metadata: md }),
      'warning Gateway shop/w: apiVersion: gateway.networking.k8s.io/v1alpha2 is not read; did you mean gateway.networking.k8s.io/v1?',
    );
    assert.equal(
      near({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gatewayclass', metadata: { name: 'c' } }),
      'warning Gatewayclass c: kind: Gatewayclass is not served (kinds are case-sensitive); did you mean GatewayClass?',
    );
    assert.equal(
      near({ kind: 'Namespace', metadata: { name: 'shop' } }),
      'warning Namespace shop: apiVersion: required field is missing; did you mean v1?',
    );
  });
  it('is silent for what is read and for other groups', () => {
    assert.equal(near(gateway()), undefined);
    assert.equal(near({ apiVersion: 'networking.istio.io/v1', kind: 'Gateway', metadata: {} }), undefined);
    assert.equal(
      near({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: {} }),
      undefined,
    );
  });
});
