// The fake Istio CA checked by a client nobody here wrote (python3-grpcio): a CSR with a token of audience
// istio-ca gets a chain (leaf for the token's service account, lifetime as asked, root last); a token of another
// audience is refused with UNAUTHENTICATED; a request that is no CSR with INVALID_ARGUMENT.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newCertificateRequest } from '../../src/kit/certs/csr.ts';
import { caFiles, type CaFiles } from './istio-ca/harness.ts';
import { FakeIstioCa } from './istio-ca/server.ts';

const SCRIPT = path.resolve(import.meta.dirname, '../python/istio_ca_client.py');

interface Answer {
  chain?: string[];
  code?: string;
  details?: string;
}

describe('fake Istio CA with python3-grpcio', () => {
  let ca: FakeIstioCa;
  let files: CaFiles;
  let csrFile: string;

  const call = (ttl: number, csr = csrFile): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const args = [
        SCRIPT,
        String(ca.address.split(':')[1]),
        files.rootFile,
        ca.serverName,
        files.tokenFile,
        csr,
        String(ttl),
      ];
      execFile('/usr/bin/python3', args, { timeout: 30_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as Answer),
      );
    });

  before(async () => {
    ca = await FakeIstioCa.start();
    files = caFiles(ca);
    csrFile = path.join(files.dir, 'request.csr');
    const request = await newCertificateRequest('spiffe://cluster.local/ns/whatever/sa/asked', 1024);
    writeFileSync(csrFile, request.csrPem);
  });
  after(() => {
    ca.close();
    files.remove();
  });

  it('signs the CSR for the service account of the token, with the lifetime asked for', async () => {
    files.writeToken({ namespace: 'shop', serviceAccount: 'orders' });
    const answer = await call(600);
    assert.equal(answer.code, undefined, answer.details);
    const [leafPem, rootPem] = answer.chain ?? [];
    assert.equal(answer.chain?.length, 2);
    const leaf = new X509Certificate(leafPem ?? '');
    assert.equal(
      leaf.subjectAltName,
      'URI:spiffe://cluster.local/ns/shop/sa/orders',
      'the identity comes from the token',
    );
    assert.equal((Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 1000, 600);
    assert.ok(leaf.checkIssued(new X509Certificate(rootPem ?? '')));
    assert.equal(rootPem?.trim(), ca.issuer.ca.trim());
    assert.deepEqual(ca.requests.at(-1)!.csrUris, ['spiffe://cluster.local/ns/whatever/sa/asked']);
  });

  it('refuses a token without the istio-ca audience with UNAUTHENTICATED', async () => {
    files.writeToken({ audience: 'https://kubernetes.default.svc' });
    const answer = await call(600);
    assert.equal(answer.code, 'UNAUTHENTICATED');
    assert.match(answer.details ?? '', /do not include istio-ca/);
    files.writeToken();
  });

  it('refuses a request that is no CSR with INVALID_ARGUMENT', async () => {
    const bad = path.join(files.dir, 'bad.csr');
    writeFileSync(bad, 'not a CSR');
    const answer = await call(600, bad);
    assert.equal(answer.code, 'INVALID_ARGUMENT');
  });
});
