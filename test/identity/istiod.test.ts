// The istiod certificate provider against the fake Istio CA: first issuance, rotation at 80% minus jitter, the CA
// unavailable at start and at rotation, a token with the wrong audience, and a new mesh root.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { renewalDelay } from '../../src/identity/istiod.ts';
import { identityReadiness } from '../../src/identity/types.ts';
import { caFiles, IDENTITY, istiodProvider, TTL_MS, type CaFiles } from '../fakes/istio-ca/harness.ts';
import { FakeIstioCa } from '../fakes/istio-ca/server.ts';

const leafOf = (pem: Buffer | undefined) => new X509Certificate(pem ?? '');

describe('identity/istiod: certificates from the Istio CA', () => {
  let ca: FakeIstioCa;
  let files: CaFiles;
  before(async () => {
    ca = await FakeIstioCa.start();
    files = caFiles(ca);
  });
  after(() => {
    ca.close();
    files.remove();
  });

  it('renews at 80% of the lifetime minus up to 10% jitter', () => {
    assert.equal(renewalDelay(1000_000, 0), 800_000);
    assert.equal(renewalDelay(1000_000, 0.5), 750_000);
    assert.equal(renewalDelay(1000_000, 0.999_999), 700_000);
  });

  it('first issuance: a CSR with the SPIFFE identity, the bearer token, the TTL asked for; the chain is served', async () => {
    const { provider, clock } = istiodProvider(ca, files);
    try {
      assert.equal(identityReadiness(provider.status(), clock.now()).ready, false);
      const before = ca.requests.length;
      provider.start();
      await provider.renew();
      const req = ca.requests.at(-1)!;
      assert.equal(ca.requests.length, before + 1);
      assert.deepEqual(req.csrUris, [IDENTITY]);
      assert.equal(req.validitySeconds, TTL_MS / 1000);
      assert.match(req.authorization ?? '', /^Bearer ey/);
      assert.equal(req.outcome, IDENTITY);
      const pair = provider.current()!;
      const leaf = leafOf(pair.cert);
      assert.equal(leaf.subjectAltName, `URI:${IDENTITY}`);
      assert.ok(leaf.checkIssued(new X509Certificate(ca.issuer.ca)));
      assert.equal(pair.cert.toString().match(/BEGIN CERTIFICATE/g)?.length, 1, 'the root is not served');
      const s = provider.status();
      assert.deepEqual(s.renewals, { success: 1, failure: 0 });
      assert.equal(s.expiresAt, Date.parse(leaf.validTo));
      assert.deepEqual(identityReadiness(s, clock.now()), { ready: true });
      assert.deepEqual(clock.pendingDelays(), [0.8 * TTL_MS]);
    } finally {
      provider.close();
    }
  });

  it('rotates at the scheduled time; a CA outage then keeps the current certificate and is counted', async () => {
    const { provider, clock } = istiodProvider(ca, files, { random: () => 0.5 });
    ca.now = () => clock.now();
    try {
      provider.start();
      await provider.renew();
      const first = leafOf(provider.current()!.cert).serialNumber;
      assert.deepEqual(clock.pendingDelays(), [0.75 * TTL_MS]);
      clock.advance(0.75 * TTL_MS);
      await provider.renew(); // joins the attempt the timer started
      const second = leafOf(provider.current()!.cert).serialNumber;
      assert.notEqual(second, first);
      assert.deepEqual(provider.status().renewals, { success: 2, failure: 0 });

      ca.unavailable = true;
      clock.advance(0.75 * TTL_MS);
      await provider.renew();
      assert.equal(leafOf(provider.current()!.cert).serialNumber, second, 'keeps serving');
      const s = provider.status();
      assert.deepEqual(s.renewals, { success: 2, failure: 1 });
      assert.match(s.lastError ?? '', /UNAVAILABLE|unavailable/);
      const ready = identityReadiness(s, clock.now());
      assert.equal(ready.ready, true);
      assert.match(ready.reason ?? '', /renewal failing, serving the current certificate/);
      assert.deepEqual(clock.pendingDelays(), [1000], 'retried with backoff');
      clock.advance(1000);
      await provider.renew();
      assert.deepEqual(clock.pendingDelays(), [2000]);

      ca.unavailable = false;
      clock.advance(2000);
      await provider.renew();
      assert.notEqual(leafOf(provider.current()!.cert).serialNumber, second);
      assert.equal(provider.status().lastError, undefined);
      assert.deepEqual(clock.pendingDelays(), [0.75 * TTL_MS], 'backoff reset, next rotation scheduled');
    } finally {
      ca.unavailable = false;
      ca.now = () => Date.now();
      provider.close();
    }
  });

  it('CA unavailable at start: not ready, saying why, until the first certificate arrives', async () => {
    ca.unavailable = true;
    const { provider, clock } = istiodProvider(ca, files);
    try {
      provider.start();
      await provider.renew();
      assert.equal(provider.current(), undefined);
      const waiting = identityReadiness(provider.status(), clock.now());
      assert.equal(waiting.ready, false);
      assert.match(
        waiting.reason ?? '',
        /waiting for the first certificate \(istiod\): 127\.0\.0\.1:\d+: .*unavailable/,
      );
      ca.unavailable = false;
      clock.advance(1000);
      await provider.renew();
      assert.ok(provider.current());
      assert.deepEqual(identityReadiness(provider.status(), clock.now()), { ready: true });
    } finally {
      ca.unavailable = false;
      provider.close();
    }
  });

  it('a token without the istio-ca audience is refused with UNAUTHENTICATED, and a fresh token is read next time', async () => {
    files.writeToken({ audience: ['kubernetes'] });
    const { provider } = istiodProvider(ca, files);
    try {
      provider.start();
      await provider.renew();
      assert.equal(ca.requests.at(-1)!.outcome, 'UNAUTHENTICATED');
      assert.match(provider.status().lastError ?? '', /UNAUTHENTICATED.*do not include istio-ca/);
      files.writeToken();
      await provider.renew();
      assert.equal(ca.requests.at(-1)!.outcome, IDENTITY);
    } finally {
      files.writeToken();
      provider.close();
    }
  });

  it('without a usable client root the certificate is issued but not ready; the root file is picked up later', async () => {
    const rootFile = `${files.dir}/later-root.pem`;
    const { provider, clock } = istiodProvider(ca, files, { clientRootFile: rootFile });
    try {
      provider.start();
      await provider.renew();
      assert.ok(provider.current());
      const blocked = identityReadiness(provider.status(), clock.now());
      assert.equal(blocked.ready, false);
      assert.match(blocked.reason ?? '', /client root .*later-root\.pem unusable/);
      writeFileSync(rootFile, ca.issuer.ca);
      assert.equal(provider.loadRoot(), true);
      assert.deepEqual(identityReadiness(provider.status(), clock.now()), { ready: true });
    } finally {
      provider.close();
    }
  });

  it('a CA whose certificate is not valid for --ca-server-name is refused', async () => {
    const other = await FakeIstioCa.start({ serverName: 'istiod.elsewhere.svc' });
    const { provider } = istiodProvider(other, files, { serverName: 'istiod.istio-system.svc' });
    try {
      provider.start();
      await provider.renew();
      assert.equal(other.requests.length, 0);
      assert.equal(provider.current(), undefined);
      assert.match(provider.status().lastError ?? '', /istiod\.istio-system\.svc|altnames|Hostname/i);
    } finally {
      provider.close();
      other.close();
    }
  });
});
