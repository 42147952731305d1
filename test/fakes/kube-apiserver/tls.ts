// A throwaway test CA and a server certificate for 127.0.0.1/localhost, made once per process with openssl.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestTls {
  caPem: string;
  certPem: string;
  keyPem: string;
}

let cached: TestTls | undefined;

/** Contract: the same CA and certificate for the whole process (generated on first use, ~50 ms). */
export function testTls(): TestTls {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'fake-kube-tls-'));
  const f = (n: string): string => join(dir, n);
  const run = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: 'pipe', timeout: 20_000 });
  };
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    run(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.crt'),
      '-days',
      '7',
      '-subj',
      '/CN=fake-kube-ca',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    run('req', ...ec, '-keyout', f('srv.key'), '-out', f('srv.csr'), '-subj', '/CN=fake-kube-apiserver');
    writeFileSync(
      f('ext.cnf'),
      [
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        'basicConstraints=CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        'extendedKeyUsage=serverAuth',
        'subjectKeyIdentifier=hash',
        'authorityKeyIdentifier=keyid',
      ].join('\n'),
    );
    run(
      'x509',
      '-req',
      '-in',
      f('srv.csr'),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f('srv.crt'),
      '-days',
      '7',
      '-extfile',
      f('ext.cnf'),
    );
    cached = {
      caPem: readFileSync(f('ca.crt'), 'utf8'),
      certPem: readFileSync(f('srv.crt'), 'utf8'),
      keyPem: readFileSync(f('srv.key'), 'utf8'),
    };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
