// Registry VIPs (src/registry/vips.ts): derived from the host, stable, unique, seeded from what exists.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { candidateVip, RegistryVips } from '../../src/registry/vips.ts';

describe('RegistryVips', () => {
  it('derives the same VIP for a host in every process, inside 241.0.0.0/8', () => {
    const a = new RegistryVips().acquire('org.example.demoservice');
    const b = new RegistryVips().acquire('org.example.demoservice');
    assert.equal(a, b);
    assert.match(a, /^241\.\d+\.\d+\.(\d+)$/);
    assert.notEqual(a.split('.')[3], '0');
    assert.notEqual(a.split('.')[3], '255');
  });

  it('never gives one VIP to two hosts: a collision re-hashes for the later host', () => {
    const vips = new RegistryVips();
    const first = candidateVip('victim', 0);
    vips.seed('squatter', first); // as if another host held the value
    const got = vips.acquire('victim');
    assert.equal(got, candidateVip('victim', 1));
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) seen.add(vips.acquire(`svc-${i}.example`));
    assert.equal(seen.size, 5000);
  });

  it('keeps a seeded VIP and frees a VIP only when its last holder releases it', () => {
    const vips = new RegistryVips();
    vips.seed('h', '241.1.2.3');
    assert.equal(vips.acquire('h'), '241.1.2.3');
    assert.equal(vips.acquire('h'), '241.1.2.3');
    vips.release('h');
    assert.equal(vips.size, 1);
    vips.release('h');
    assert.equal(vips.size, 0);
    assert.equal(vips.acquire('h'), candidateVip('h', 0));
  });
});
