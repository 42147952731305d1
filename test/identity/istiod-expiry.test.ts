// The istiod certificate provider when the CA outlives the certificate: the retries come at most
// URGENT_RETRY_MAX_MS apart from a minute before expiry, readiness returns within that long of the CA's return, and
// every failure is one warn line saying "expired" with the cause and no stack trace.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { retryDelay, URGENT_RETRY_MAX_MS, URGENT_WINDOW_MS } from '../../src/identity/istiod.ts';
import { identityReadiness } from '../../src/identity/types.ts';
import { caFiles, istiodProvider, TTL_MS, type CaFiles } from '../fakes/istio-ca/harness.ts';
import { FakeIstioCa } from '../fakes/istio-ca/server.ts';
import { recordingLogger } from '../support/recording-logger.ts';

describe('identity/istiod: renewal with an expired certificate', () => {
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

  it('retryDelay: the backoff far from expiry, never past the window, capped inside it and without a certificate', () => {
    const exp = 1_000_000;
    assert.equal(retryDelay(60_000, 0, exp), 60_000);
    assert.equal(retryDelay(60_000, exp - URGENT_WINDOW_MS - 10_000, exp), 10_000);
    assert.equal(retryDelay(60_000, exp - URGENT_WINDOW_MS, exp), URGENT_RETRY_MAX_MS);
    assert.equal(retryDelay(60_000, exp + 1, exp), URGENT_RETRY_MAX_MS);
    assert.equal(retryDelay(2_000, exp + 1, exp), 2_000);
    assert.equal(retryDelay(60_000, 0, undefined), URGENT_RETRY_MAX_MS);
  });

  it('the CA down past expiry: short retries, "expired" in one line, ready again within 5 s of its return', async () => {
    const log = recordingLogger();
    const { provider, clock } = istiodProvider(ca, files, { logger: log });
    ca.now = () => clock.now();
    try {
      provider.start();
      await provider.renew();
      const expiresAt = provider.status().expiresAt!;
      ca.unavailable = true;
      // Walk the retries until well past expiry, recording when each attempt was made and the delay it chose.
      const attempts: { at: number; delay: number }[] = [];
      while (clock.now() < expiresAt + 30_000) {
        const [delay] = clock.pendingDelays();
        assert.ok(delay !== undefined, 'a retry is always pending');
        clock.advance(delay);
        await provider.renew();
        attempts.push({ at: clock.now(), delay: clock.pendingDelays()[0]! });
      }
      assert.ok(
        attempts.some((a) => a.delay === 60_000),
        'the backoff reached its cap before the window',
      );
      for (const a of attempts) {
        if (a.at >= expiresAt - URGENT_WINDOW_MS) assert.ok(a.delay <= URGENT_RETRY_MAX_MS, `${a.delay} ms`);
        else assert.ok(a.at + a.delay <= expiresAt - URGENT_WINDOW_MS, 'no delay runs into the window');
      }
      const ready = identityReadiness(provider.status(), clock.now());
      assert.equal(ready.ready, false);
      assert.match(ready.reason ?? '', /certificate expired at .*unavailable/i);

      const warns = log.records.filter((r) => r.level === 'warn');
      assert.equal(warns.length, attempts.length);
      const last = warns.at(-1)!;
      assert.match(
        last.message,
        /^certificate renewal failed, the current certificate expired at \S+: .*unavailable.*; retrying in \d+ ms$/i,
      );
      assert.ok(!last.message.includes('\n'), 'one line');
      for (const w of warns) assert.equal(w.fields['stack'], undefined, 'no stack trace');
      const before = warns.find((w) => /serving the current certificate/.test(w.message));
      assert.ok(before, 'before expiry it says the current certificate is served');
      assert.match(before.message, /expires at/);

      ca.unavailable = false;
      const [wait] = clock.pendingDelays();
      assert.ok(wait !== undefined && wait <= URGENT_RETRY_MAX_MS);
      clock.advance(wait);
      await provider.renew();
      assert.deepEqual(identityReadiness(provider.status(), clock.now()), { ready: true });
      assert.deepEqual(clock.pendingDelays(), [0.8 * TTL_MS], 'back to the normal rotation');
    } finally {
      ca.unavailable = false;
      ca.now = () => Date.now();
      provider.close();
    }
  });
});
