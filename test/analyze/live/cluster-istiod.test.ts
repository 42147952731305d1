// istiod's version from its Deployments: the discovery image's tag, then the version labels.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { istiodVersionOf, releaseOf } from '../../../src/analyze/live/cluster-istiod.ts';

const deployment = (name: string, image: string, labels: Record<string, string> = {}) => ({
  metadata: { name, labels: { app: 'istiod', ...labels } },
  spec: { template: { spec: { containers: [{ name: 'discovery', image }] } } },
});

describe('istiod version', () => {
  it('reads the tag of the discovery image', () => {
    assert.equal(
      istiodVersionOf([deployment('istiod', 'docker.io/istio/pilot:1.24.2-distroless')]),
      '1.24.2',
    );
    assert.equal(istiodVersionOf([deployment('istiod', 'localhost:5000/pilot:1.22.0')]), '1.22.0');
  });

  it('prefers the Deployment named istiod, else the first by name', () => {
    const canary = deployment('istiod-canary', 'istio/pilot:1.25.0');
    assert.equal(istiodVersionOf([canary, deployment('istiod', 'istio/pilot:1.24.1')]), '1.24.1');
    assert.equal(istiodVersionOf([deployment('istiod-b', 'istio/pilot:1.23.0'), canary]), '1.23.0');
  });

  it('falls back to the version labels when the tag names no release', () => {
    const latest = (labels: Record<string, string>) => [deployment('istiod', 'istio/pilot:latest', labels)];
    assert.equal(istiodVersionOf(latest({ 'operator.istio.io/version': '1.21.3' })), '1.21.3');
    assert.equal(istiodVersionOf(latest({ 'istio.io/rev': '1-24-2' })), '1.24.2');
    assert.equal(istiodVersionOf(latest({ 'istio.io/rev': 'canary' })), undefined);
    assert.equal(istiodVersionOf([deployment('istiod', 'istio/pilot@sha256:abc')]), undefined);
    assert.equal(istiodVersionOf([]), undefined);
  });

  it('reads releases, not lookalikes', () => {
    assert.equal(releaseOf('v1.31.0-rc.0'), '1.31.0');
    assert.equal(releaseOf('1.24'), '1.24');
    assert.equal(releaseOf('1.24x'), undefined);
    assert.equal(releaseOf('latest'), undefined);
  });
});
