// The files provider: expiry from the certificate, a valid change counted as a renewal and applied, unusable
// files counted as a failure while the previous pair stays; readiness of every provider from its status.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { FilesIdentityProvider } from '../../src/identity/files.ts';
import { identityReadiness, type IdentityStatus } from '../../src/identity/types.ts';
import { generateDevCertificates } from '../../src/tools/dev-certs.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { testCa, writeCertDir } from '../fakes/test-ca.ts';

describe('identity/files', () => {
  const certs = writeCertDir();
  after(() => certs.remove());

  it('reports the expiry, applies a valid change as a renewal, keeps the pair when the files are unusable', () => {
    const p = new FilesIdentityProvider({
      kind: 'files',
      ...certs,
      logger: silentLogger,
      pollIntervalMs: 60_000,
    });
    try {
      const first = p.status();
      assert.equal(first.provider, 'files');
      assert.equal(first.expiresAt, Date.parse(new X509Certificate(testCa().serverCert).validTo));
      assert.deepEqual(first.renewals, { success: 0, failure: 0 });
      assert.deepEqual(identityReadiness(first, Date.now()), { ready: true });

      const ca = testCa();
      const next = generateDevCertificates({ issuer: { cert: ca.ca, key: ca.caKey }, validityDays: 2 });
      certs.writeServer(next.serverCert, ca.serverKey); // half-written: the key does not match yet
      assert.equal(p.reload(), false);
      assert.deepEqual(p.status().renewals, { success: 0, failure: 1 });
      assert.match(p.status().lastError ?? '', /unusable/);
      assert.equal(p.current()!.cert.toString(), ca.serverCert, 'the previous pair is kept');

      certs.writeServer(next.serverCert, next.serverKey);
      assert.equal(p.reload(), true);
      const s = p.status();
      assert.deepEqual(s.renewals, { success: 1, failure: 1 });
      assert.equal(s.lastError, undefined);
      assert.equal(s.expiresAt, Date.parse(new X509Certificate(next.serverCert).validTo));
      assert.equal(p.current()!.cert.toString(), next.serverCert);
    } finally {
      p.close();
    }
  });

  it('readiness: waiting before the first certificate, not ready once expired or without a client root', () => {
    const base: IdentityStatus = {
      provider: 'istiod',
      expiresAt: 2_000,
      renewals: { success: 1, failure: 0 },
      lastError: undefined,
    };
    assert.deepEqual(identityReadiness(base, 1_000), { ready: true });
    assert.match(
      identityReadiness(base, 2_000).reason ?? '',
      /certificate expired at 1970-01-01T00:00:02\.000Z/,
    );
    assert.equal(identityReadiness(base, 2_000).ready, false);
    const blocked = identityReadiness({ ...base, blocking: 'client root /r.pem unusable' }, 1_000);
    assert.deepEqual(blocked, { ready: false, reason: 'client root /r.pem unusable' });
    const waiting = identityReadiness({ ...base, expiresAt: undefined, lastError: 'refused' }, 1_000);
    assert.deepEqual(waiting, {
      ready: false,
      reason: 'waiting for the first certificate (istiod): refused',
    });
  });
});
