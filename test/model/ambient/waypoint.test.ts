import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capturedByAmbient } from '../../../src/model/ambient/capture.ts';
import { reachesWaypoint } from '../../../src/model/ambient/envoyfilter.ts';
import { selectorMatches } from '../../../src/model/ambient/selector.ts';
import { waypointImageOverride, type WaypointGateway } from '../../../src/model/ambient/waypoint.ts';

describe('label selectors (apimachinery LabelSelectorAsSelector)', () => {
  it('absent matches nothing, empty matches everything', () => {
    assert.equal(selectorMatches(undefined, { a: '1' }), false);
    assert.equal(selectorMatches({}, {}), true);
  });

  it('matchLabels and every operator', () => {
    const labels = { team: 'shop', tier: 'gold' };
    assert.equal(selectorMatches({ matchLabels: { team: 'shop' } }, labels), true);
    assert.equal(selectorMatches({ matchLabels: { team: 'web' } }, labels), false);
    const e = (operator: string, values?: string[], key = 'tier') => ({
      matchExpressions: [{ key, operator, ...(values ? { values } : {}) }],
    });
    assert.equal(selectorMatches(e('In', ['gold', 'silver']), labels), true);
    assert.equal(selectorMatches(e('In', ['silver']), labels), false);
    assert.equal(selectorMatches(e('NotIn', ['silver']), labels), true);
    assert.equal(selectorMatches(e('NotIn', ['x'], 'absent'), labels), true);
    assert.equal(selectorMatches(e('Exists'), labels), true);
    assert.equal(selectorMatches(e('DoesNotExist'), labels), false);
    assert.equal(selectorMatches(e('DoesNotExist', undefined, 'absent'), labels), true);
  });

  it('a malformed selector matches nothing', () => {
    const labels = { tier: 'gold' };
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'In' }] }, labels), false);
    assert.equal(
      selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'Exists', values: ['x'] }] }, labels),
      false,
    );
    assert.equal(
      selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'in', values: ['gold'] }] }, labels),
      false,
    );
  });
});

describe('the waypoint image (files/waypoint.yaml)', () => {
  const gw = (proxyImage?: string): WaypointGateway => ({
    namespace: 'shop',
    name: 'wp',
    className: 'istio-waypoint',
    addressed: true,
    listeners: [],
    ...(proxyImage !== undefined ? { proxyImage } : {}),
  });
  it('takes sidecar.istio.io/proxyImage only when it contains a slash', () => {
    assert.equal(
      waypointImageOverride(gw('ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2')),
      'ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2',
    );
    assert.equal(waypointImageOverride(gw('proxyv2')), undefined);
    assert.equal(waypointImageOverride(gw()), undefined);
  });
});

describe('ambient capture of pods (istio-cni default enablement selectors)', () => {
  const pod = (
    labels: Record<string, string> = {},
    extra: { hasSidecar?: boolean; hostNetwork?: boolean } = {},
  ) => ({
    labels,
    hasSidecar: extra.hasSidecar ?? false,
    hostNetwork: extra.hostNetwork ?? false,
  });
  const ambientNs = { 'istio.io/dataplane-mode': 'ambient' };
  it('a pod in an ambient namespace is captured unless it opts out with none', () => {
    assert.equal(capturedByAmbient(pod(), ambientNs), true);
    assert.equal(capturedByAmbient(pod({ 'istio.io/dataplane-mode': 'none' }), ambientNs), false);
    assert.equal(capturedByAmbient(pod(), {}), false);
  });
  it('a pod labelled ambient is captured anywhere; never with a sidecar or host networking', () => {
    assert.equal(capturedByAmbient(pod({ 'istio.io/dataplane-mode': 'ambient' }), {}), true);
    assert.equal(capturedByAmbient(pod({}, { hasSidecar: true }), ambientNs), false);
    assert.equal(capturedByAmbient(pod({}, { hostNetwork: true }), ambientNs), false);
  });
});

describe('EnvoyFilter attachment to a waypoint (policyattachment.go ShouldAttachPolicy)', () => {
  const wp = { namespace: 'shop', name: 'shop-wp' };
  const ref = { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'shop-wp' };
  it('a targetRef to the Gateway from its own namespace reaches it', () => {
    assert.equal(reachesWaypoint({ namespace: 'shop', targetRefs: [ref] }, wp, 'istio-system'), true);
    assert.equal(
      reachesWaypoint({ namespace: 'shop', targetRefs: [{ ...ref, namespace: 'shop' }] }, wp, 'istio-system'),
      true,
    );
  });
  it('no targetRefs (workloadSelector only), another namespace, another name, kind or group: never', () => {
    assert.equal(reachesWaypoint({ namespace: 'shop' }, wp, 'istio-system'), false);
    assert.equal(reachesWaypoint({ namespace: 'other', targetRefs: [ref] }, wp, 'istio-system'), false);
    assert.equal(
      reachesWaypoint({ namespace: 'istio-system', targetRefs: [ref] }, wp, 'istio-system'),
      false,
    );
    assert.equal(
      reachesWaypoint(
        { namespace: 'shop', targetRefs: [{ ...ref, namespace: 'other' }] },
        wp,
        'istio-system',
      ),
      false,
    );
    assert.equal(
      reachesWaypoint({ namespace: 'shop', targetRefs: [{ ...ref, name: 'x' }] }, wp, 'istio-system'),
      false,
    );
    assert.equal(
      reachesWaypoint({ namespace: 'shop', targetRefs: [{ ...ref, group: '' }] }, wp, 'istio-system'),
      false,
    );
    assert.equal(
      reachesWaypoint(
        { namespace: 'shop', targetRefs: [{ group: '', kind: 'Service', name: 'orders' }] },
        wp,
        'istio-system',
      ),
      false,
    );
  });
  it('the istio-waypoint GatewayClass from the root namespace reaches every waypoint', () => {
    const cls = { group: 'gateway.networking.k8s.io', kind: 'GatewayClass', name: 'istio-waypoint' };
    assert.equal(reachesWaypoint({ namespace: 'istio-system', targetRefs: [cls] }, wp, 'istio-system'), true);
    assert.equal(reachesWaypoint({ namespace: 'shop', targetRefs: [cls] }, wp, 'istio-system'), false);
  });
});
