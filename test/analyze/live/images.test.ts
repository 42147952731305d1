// Proxy images compared by repository.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { imageRepository, isKnownImage } from '../../../src/analyze/proxy-images.ts';

describe('proxy images', () => {
  it('spells out Docker Hub and drops tag and digest', () => {
    assert.equal(imageRepository('envoy:v1'), 'docker.io/library/envoy');
    assert.equal(imageRepository('aeraki/meta-protocol-proxy:1.0.1'), 'docker.io/aeraki/meta-protocol-proxy');
    assert.equal(imageRepository('index.docker.io/istio/proxyv2@sha256:abc'), 'docker.io/istio/proxyv2');
    assert.equal(imageRepository('localhost:5000/mpp:dev'), 'localhost:5000/mpp');
    assert.equal(
      imageRepository('ghcr.io/aeraki-mesh/meta-protocol-proxy'),
      'ghcr.io/aeraki-mesh/meta-protocol-proxy',
    );
  });

  it('matches by repository only', () => {
    const known = ['ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2'];
    assert.ok(isKnownImage('ghcr.io/aeraki-mesh/meta-protocol-proxy:1.5.0', known));
    assert.ok(!isKnownImage('ghcr.io/aeraki-mesh/meta-protocol-proxy-debug:1.4.2', known));
    assert.ok(!isKnownImage('docker.io/istio/proxyv2:1.24.2', known));
  });
});
