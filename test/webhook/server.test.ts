// The webhook over HTTPS, posted to as the API server posts (captured AdmissionReview shapes, v1 and v1beta1) by
// clients nobody here wrote: curl and python3 (ssl + urllib), both verifying the serving certificate against its
// CA. Then the certificate files are replaced and new handshakes get the new certificate without a restart; and
// `startServe --webhook-address` serves the same validation against its store.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { generationCheck } from '../../src/app/validate.ts';
import { validateObjects } from '../../src/model/validate/validate.ts';
import { generateDevCertificates, type DevCertPems } from '../../src/tools/dev-certs.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { WebhookServer } from '../../src/webhook/server.ts';
import { serveOptions } from '../e2e/options.ts';
import { waitFor } from '../e2e/support.ts';
import { binary, run } from '../support/process.ts';
import { INVALID_META_ROUTER, META_ROUTER, reviewV1, reviewV1beta1 } from './reviews.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';
import { PARSE_OPTIONS } from '../support/kinds.ts';

const CURL = binary('/usr/bin/curl', 'curl');
const PYTHON = '/usr/bin/python3';
const POST_PY = fileURLToPath(new URL('../python/admission_post.py', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-webhook-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function write(text: string | object, name = `body-${++files}.json`): string {
  const p = path.join(dir, name);
  writeFileSync(p, typeof text === 'string' ? text : JSON.stringify(text));
  return p;
}

interface Reply {
  readonly status: number;
  readonly body: any;
}

async function curl(url: string, ca: string, bodyFile: string, type = 'application/json'): Promise<Reply> {
  const r = await run(
    CURL,
    [
      '-sS',
      '--cacert',
      ca,
      '-H',
      `Content-Type: ${type}`,
      '--data-binary',
      `@${bodyFile}`,
      '-w',
      '\n%{http_code}',
      url,
    ],
    20_000,
  );
  assert.equal(r.code, 0, `curl failed: ${r.stderr}`);
  const lines = r.stdout.trimEnd().split('\n');
  return { status: Number(lines.pop()), body: JSON.parse(lines.join('\n')) };
}

async function python(url: string, ca: string, bodyFile: string, type?: string): Promise<Reply> {
  const r = await run(PYTHON, [POST_PY, url, ca, bodyFile, ...(type ? [type] : [])], 20_000);
  assert.equal(r.code, 0, `python3 failed: ${r.stderr}`);
  const [status, ...rest] = r.stdout.trimEnd().split('\n');
  return { status: Number(status), body: JSON.parse(rest.join('\n')) };
}

/** SHA-256 of the certificate the server presents to a new handshake. */
function presented(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const raw = s.getPeerCertificate().raw;
      s.end();
      resolve(createHash('sha256').update(raw).digest('hex'));
    });
    s.on('error', reject);
  });
}

const fingerprint = (pem: string) =>
  createHash('sha256')
    .update(Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64'))
    .digest('hex');

const validate = (o: Readonly<Record<string, unknown>>) =>
  validateObjects([o], {
    rootNamespace: 'istio-system',
    parseOptions: PARSE_OPTIONS,
    check: generationCheck({ rootNamespace: 'istio-system', namespaceScope: false }),
  }).issues;

describe('webhook over HTTPS', () => {
  let first: DevCertPems;
  let second: DevCertPems;
  let server: WebhookServer;
  let url: string;
  let port: number;
  const certFile = path.join(dir, 'tls.crt');
  const keyFile = path.join(dir, 'tls.key');
  let caFirst: string;

  before(async () => {
    first = generateDevCertificates({ caCommonName: 'first CA' });
    second = generateDevCertificates({ caCommonName: 'second CA' });
    caFirst = write(first.ca, 'first-ca.crt');
    writeFileSync(certFile, first.serverCert);
    writeFileSync(keyFile, first.serverKey);
    server = new WebhookServer({
      address: { host: '127.0.0.1', port: 0 },
      kinds: createPluginKinds(),
      certFile,
      keyFile,
      validate,
      logger: silentLogger,
      pollIntervalMs: 50,
    });
    port = (await server.start()).port;
    url = `https://localhost:${port}/validate`;
  });
  after(() => server.stop());

  it('curl, v1: a valid MetaRouter is allowed, an invalid one denied, in v1 with the uid', async () => {
    const ok = await curl(url, caFirst, write(reviewV1(META_ROUTER, 'c-1')));
    assert.equal(ok.status, 200);
    assert.equal(ok.body.apiVersion, 'admission.k8s.io/v1');
    assert.equal(ok.body.kind, 'AdmissionReview');
    assert.deepEqual([ok.body.response.uid, ok.body.response.allowed], ['c-1', true]);
    // Checked alone, its host has no ServiceEntry: a warning, not a denial.
    assert.match(ok.body.response.warnings?.[0] ?? '', /no ServiceEntry has/);
    const bad = await curl(`${url}/`, caFirst, write(reviewV1(INVALID_META_ROUTER, 'c-2')));
    assert.equal(bad.status, 200);
    assert.equal(bad.body.apiVersion, 'admission.k8s.io/v1');
    assert.equal(bad.body.response.uid, 'c-2');
    assert.equal(bad.body.response.allowed, false);
    assert.match(
      bad.body.response.status.message,
      /^configuration is invalid: MetaRouter meta-thrift\/test-metaprotocol-route: spec\.localRateLimit\.tokenBucket\.fillInterval: /,
    );
  });

  it('python3, v1beta1: answered in v1beta1; DELETE allowed; unknown kind denied', async () => {
    const bad = await python(url, caFirst, write(reviewV1beta1(INVALID_META_ROUTER, 'p-1')));
    assert.equal(bad.status, 200);
    assert.equal(bad.body.apiVersion, 'admission.k8s.io/v1beta1');
    assert.deepEqual([bad.body.response.uid, bad.body.response.allowed], ['p-1', false]);
    const del = await python(url, caFirst, write(reviewV1beta1(INVALID_META_ROUTER, 'p-2', 'DELETE')));
    assert.deepEqual(del.body.response, { uid: 'p-2', allowed: true });
    const pod = reviewV1(META_ROUTER, 'p-3', 'CREATE', { group: '', version: 'v1', kind: 'Pod' });
    const unknown = await python(url, caFirst, write(pod));
    assert.equal(unknown.body.response.allowed, false);
    assert.match(unknown.body.response.status.message, /^unrecognized type /);
  });

  it('400 on an empty body, 415 on a wrong content type', async () => {
    assert.equal((await curl(url, caFirst, write(''))).status, 400);
    assert.equal((await python(url, caFirst, write(''))).status, 400);
    const review = write(reviewV1(META_ROUTER, 'x'));
    assert.equal((await curl(url, caFirst, review, 'text/plain')).status, 415);
    assert.equal((await python(url, caFirst, review, 'application/yaml')).status, 415);
    assert.equal((await curl(url, caFirst, write('{"kind":"Pod"}'))).status, 400);
  });

  it('reloads the certificate when its files change, keeping the old pair while they do not match', async () => {
    assert.equal(await presented(port), fingerprint(first.serverCert));
    writeFileSync(certFile, second.serverCert); // the key is still the first one: not a pair
    assert.equal(server.reloadCertificate(), false);
    assert.equal(await presented(port), fingerprint(first.serverCert));
    writeFileSync(keyFile, second.serverKey); // now a pair: the poll applies it
    await waitFor(
      async () => (await presented(port)) === fingerprint(second.serverCert),
      'the new certificate',
    );
    const ok = await curl(url, write(second.ca, 'second-ca.crt'), write(reviewV1(META_ROUTER, 'r-1')));
    assert.equal(ok.body.response.allowed, true);
  });
});

describe('aeraki serve --webhook-address', () => {
  let running: RunningServe;
  const certs = path.join(dir, 'serve-certs');
  before(async () => {
    running = await startServe(
      serveOptions({
        configSource: 'dir',
        configDir: EXAMPLES,
        output: 'dir',
        outputDir: path.join(dir, 'out'),
        rdsInsecure: true,
        devCertsDir: certs,
        leaderElect: false,
        namespaceBootstrap: false,
        webhookAddress: { host: '127.0.0.1', port: 0 },
      }),
      { logger: silentLogger },
    );
    await running.synced;
  });
  after(() => running.stop());

  it('serves /validate with the development certificate, validating against the store', async () => {
    const url = `https://localhost:${running.webhookAddress!.split(':').pop()}/validate`;
    const ca = path.join(certs, 'ca.crt');
    const ok = await curl(url, ca, write(reviewV1(META_ROUTER, 's-1')));
    assert.deepEqual(ok.body.response, { uid: 's-1', allowed: true });
    const bad = await python(url, ca, write(reviewV1(INVALID_META_ROUTER, 's-2')));
    assert.equal(bad.body.response.allowed, false);
  });
});
