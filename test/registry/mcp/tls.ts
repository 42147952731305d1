// mTLS material for the MCP server tests: a provider serving the test CA's server certificate and verifying
// clients against its root, and client certificates of the test CA with a given SPIFFE identity, as files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServiceEntryMcpServerOptions } from '../../../src/registry/mcp/server.ts';
import { CertificateMaterial } from '../../../src/kit/certs/cert-material.ts';
import { meshClient, testCa } from '../../fakes/test-ca.ts';

export const INSECURE: ServiceEntryMcpServerOptions['tls'] = { insecure: true };
export const ISTIOD = 'spiffe://cluster.local/ns/istio-system/sa/istiod';

/** The test CA's server key pair and root, as the controller's certificate provider would hold them. */
export function meshTls(): ServiceEntryMcpServerOptions['tls'] {
  const pems = testCa();
  const provider = new CertificateMaterial();
  provider.setRoot(Buffer.from(pems.ca));
  provider.setIdentity({ cert: Buffer.from(pems.serverCert), key: Buffer.from(pems.serverKey) });
  return { provider };
}

/** The CA, and a client certificate and key with `identity` (none when empty), written to a temp directory. */
export function clientFiles(identity: string): { ca: string; cert: string; key: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-client-'));
  const c = meshClient(identity ? [identity] : []);
  const f = (name: string, body: string) => {
    writeFileSync(path.join(dir, name), body);
    return path.join(dir, name);
  };
  return {
    ca: f('ca.crt', testCa().ca),
    cert: f('client.crt', c.cert),
    key: f('client.key', c.key),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
