// Test certificates from the project's own dev-certs module, generated once per process (key generation is the
// slow part), written to a temp directory when a test needs files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  generateDevCertificates,
  issueClientCertificate,
  type DevCertPems,
} from '../../src/tools/dev-certs.ts';

let main: DevCertPems | undefined;
let foreign: DevCertPems | undefined;

/** The mesh CA with a server and a client certificate. */
export function testCa(): DevCertPems {
  return (main ??= generateDevCertificates());
}

/** Another, unrelated CA (its client certificate must be refused). */
export function foreignCa(): DevCertPems {
  return (foreign ??= generateDevCertificates({ caCommonName: 'Foreign CA', clientCommonName: 'intruder' }));
}

const clients = new Map<string, { readonly cert: string; readonly key: string }>();

/**
 * A client certificate of the mesh CA (testCa) with these URI SANs (none when empty), cached per SAN list;
 * the subject CN is `commonName`.
 */
export function meshClient(
  uris: readonly string[],
  commonName = 'workload',
): { readonly cert: string; readonly key: string } {
  const key = `${commonName}|${uris.join(',')}`;
  let c = clients.get(key);
  if (!c) {
    const ca = testCa();
    c = issueClientCertificate({ cert: ca.ca, key: ca.caKey }, { commonName, uris });
    clients.set(key, c);
  }
  return c;
}

export interface CertDir {
  readonly dir: string;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** Overwrites the server certificate and key (rotation). */
  writeServer(cert: string, key: string): void;
  remove(): void;
}

export function writeCertDir(pems: DevCertPems = testCa()): CertDir {
  const dir = mkdtempSync(path.join(tmpdir(), 'rds-certs-'));
  const f = (n: string) => path.join(dir, n);
  writeFileSync(f('ca.crt'), pems.ca);
  writeFileSync(f('server.crt'), pems.serverCert);
  writeFileSync(f('server.key'), pems.serverKey);
  writeFileSync(f('client.crt'), pems.clientCert);
  writeFileSync(f('client.key'), pems.clientKey);
  return {
    dir,
    caFile: f('ca.crt'),
    certFile: f('server.crt'),
    keyFile: f('server.key'),
    clientCertFile: f('client.crt'),
    clientKeyFile: f('client.key'),
    writeServer(cert, key) {
      writeFileSync(f('server.crt'), cert);
      writeFileSync(f('server.key'), key);
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
