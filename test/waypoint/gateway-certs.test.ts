// The waypoint's xDS credential: the Secret W-xds holds a client certificate whose only SAN is the Gateway's
// SPIFFE identity, verified by the CA the leader created once in its namespace (read back by every replica and
// exposed as the root the xDS server trusts), its key, and the controller's server root as ca.crt; it is renewed
// at half its lifetime on the (manual) clock, and a held certificate still good is kept across a new leadership.
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { WAYPOINT_CA_SECRET } from '../../src/waypoint/ca.ts';
import { testCa } from '../fakes/test-ca.ts';
import {
  b64,
  CONTROLLER_NS,
  gateway,
  harness,
  PROXY_LISTENER,
  waypointClass,
  type Harness,
} from './gateway-support.ts';

const HOUR = 3_600_000;

describe('waypoint Gateway controller: the xDS credential and its CA', () => {
  let h: Harness;
  const secret = () => h.api.get('secrets', 'shop', 'w-xds');
  const leaf = () => new X509Certificate(b64((secret()!['data'] as Record<string, string>)['tls.crt']));
  before(async () => {
    h = await harness({ certLifetimeMs: 24 * HOUR });
    h.api.seed([waypointClass(), gateway('w', [PROXY_LISTENER])]);
    await h.until(() => secret() !== undefined, 'the Secret');
  });
  after(() => h.close());

  it('creates the CA once, in the controller namespace, and exposes its root', async () => {
    const caSecret = h.api.get('secrets', CONTROLLER_NS, WAYPOINT_CA_SECRET);
    assert.ok(caSecret, 'the CA Secret');
    const root = b64((caSecret['data'] as Record<string, string>)['ca.crt']);
    assert.ok(new X509Certificate(root).ca);
    await h.until(() => h.ca.root() === root, 'the replica reads the root');
    assert.equal(h.api.writes({ verb: 'create', resource: 'secrets' }).length, 1);
  });

  it('issues a certificate for the Gateway identity, verified by the CA, with the server root as ca.crt', () => {
    const data = secret()!['data'] as Record<string, string>;
    assert.equal(secret()!['type'], 'kubernetes.io/tls');
    const cert = leaf();
    assert.equal(cert.subjectAltName, 'URI:spiffe://cluster.local/ns/shop/sa/w');
    const ca = new X509Certificate(h.ca.root()!);
    assert.ok(cert.verify(ca.publicKey), 'signed by the CA');
    assert.ok(cert.checkIssued(ca));
    assert.ok(cert.checkPrivateKey(createPrivateKey(b64(data['tls.key']))));
    assert.equal(b64(data['ca.crt']), testCa().ca);
    assert.equal(Date.parse(cert.validTo) - h.clock.now() <= 24 * HOUR, true);
  });

  it('renews the certificate at half its lifetime, not before', async () => {
    const first = leaf().serialNumber;
    h.clock.advance(11 * HOUR);
    await h.controller.reconcile();
    assert.equal(leaf().serialNumber, first, 'still young: kept');
    h.clock.advance(1.5 * HOUR); // past half of 24 h: the renewal timer fires
    await h.until(() => leaf().serialNumber !== first, 'renewed');
    const renewed = leaf();
    assert.ok(Date.parse(renewed.validTo) > h.clock.now() + 23 * HOUR);
    assert.equal(renewed.subjectAltName, 'URI:spiffe://cluster.local/ns/shop/sa/w');
  });

  it('a new leadership keeps the certificate the Secret holds', async () => {
    const serial = leaf().serialNumber;
    const part = h.controller.part();
    await part.drain?.();
    await part.start?.();
    await h.controller.reconcile();
    assert.equal(leaf().serialNumber, serial);
    assert.equal(h.api.writes({ verb: 'create', resource: 'secrets' }).length, 1, 'no second CA');
  });

  it('a deleted CA Secret: a new CA, and the certificate reissued from it', async () => {
    const before = h.ca.root();
    // Settled first: only the deletion can cause the next run.
    await h.until(() => h.controller.synced, 'synced');
    for (let i = 0; i < 3; i++) {
      h.clock.advance(1000);
      await h.controller.reconcile();
    }
    assert.equal((await h.controller.reconcile()).written, 0);
    assert.ok(h.api.delete('secrets', CONTROLLER_NS, WAYPOINT_CA_SECRET));
    await h.until(() => h.ca.root() !== undefined && h.ca.root() !== before, 'a new CA');
    const ca = new X509Certificate(h.ca.root()!);
    await h.until(() => leaf().verify(ca.publicKey), 'reissued from the new CA');
  });
});
