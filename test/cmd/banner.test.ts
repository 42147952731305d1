// What `aeraki serve` prints for a person: with the debug listener on, the debug page's address and the
// proxy-status command that reads the same listener; without it, neither.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printServeBanner, type BannerFacts } from '../../cmd/banner.ts';
import { serveOptions } from '../e2e/options.ts';

function banner(debugAddress: string | undefined): string {
  const facts: BannerFacts = {
    rdsAddress: '127.0.0.1:15010',
    webhookAddress: undefined,
    adminAddress: '127.0.0.1:8080',
    debugAddress,
    devCerts: undefined,
  };
  let out = '';
  printServeBanner(serveOptions({ debugEndpoints: debugAddress !== undefined }), facts, (t) => (out += t));
  return out;
}

describe('serve banner', () => {
  it('names the debug page and proxy-status when the debug listener is on', () => {
    const out = banner('127.0.0.1:15090');
    assert.match(out, /^ {2}admin on http:\/\/127\.0\.0\.1:8080 {2}\(\/healthz \/readyz \/metrics\)$/m);
    assert.match(
      out,
      /^ {2}debug on http:\/\/127\.0\.0\.1:15090 {2}\(\/debug\/config .*\/debug\/proxies\)$/m,
    );
    assert.match(
      out,
      /^ {2}debug page on http:\/\/127\.0\.0\.1:15090\/debug\/ {2}\(in a shell: node bin\/aeraki\.js proxy-status --debug-address 127\.0\.0\.1:15090\)$/m,
    );
  });

  it('names neither without the debug listener', () => {
    const out = banner(undefined);
    assert.match(out, /admin on http:\/\/127\.0\.0\.1:8080/);
    assert.doesNotMatch(out, /debug|proxy-status/);
  });
});
