/**
 * Development certificates for the embedded default: generated once into a directory (`aeraki certs --out DIR`
 * writes them unconditionally), reused on later starts so client certificates handed out stay valid.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { writeDevCertificates, type DevCertPaths } from '../xds-rds/dev-certs.ts';

export type { DevCertPaths } from '../xds-rds/dev-certs.ts';

const FILES = {
  ca: 'ca.crt',
  serverCert: 'server.crt',
  serverKey: 'server.key',
  clientCert: 'client.crt',
  clientKey: 'client.key',
} as const;

/** The paths in `dir`, generating every file when any of them is missing. `generated` says which happened. */
export async function ensureDevCertificates(
  dir: string,
  opts: { namespace?: string; force?: boolean } = {},
): Promise<{ paths: DevCertPaths; generated: boolean }> {
  const paths: DevCertPaths = {
    ca: path.join(dir, FILES.ca),
    serverCert: path.join(dir, FILES.serverCert),
    serverKey: path.join(dir, FILES.serverKey),
    clientCert: path.join(dir, FILES.clientCert),
    clientKey: path.join(dir, FILES.clientKey),
  };
  if (
    !opts.force &&
    [paths.ca, paths.serverCert, paths.serverKey, paths.clientCert, paths.clientKey].every((p) =>
      existsSync(p),
    )
  )
    return { paths, generated: false };
  const written = await writeDevCertificates(dir, opts.namespace ? { namespace: opts.namespace } : {});
  return { paths: written, generated: true };
}
