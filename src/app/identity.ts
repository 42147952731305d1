/**
 * The controller's certificate in `aeraki serve` (`--cert-provider`, chosen by certProviderOf): Istio's CA
 * (`istiod`), PEM files (`files`) or the development certificates of `--dev-certs` (`dev`, generated when
 * missing; they serve the webhook too). RDS clients are verified against `--client-ca-file`, else the mesh root
 * `--ca-root-cert-file`. The provider is started here; `close()` stops it.
 */
import { FilesIdentityProvider } from '../identity/files.ts';
import { IstiodIdentityProvider } from '../identity/istiod.ts';
import { identityReadiness, spiffeId, type IdentityProvider } from '../identity/types.ts';
import type { ReadinessStatus } from '../ops/readiness.ts';
import type { CertificateStatusLike } from '../ops/status-providers.ts';
import { ensureDevCertificates, type DevCertPaths } from '../tools/dev-certs.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { Logger } from '../util/logger.ts';
import type { RdsServerOptions } from '../xds-rds/server.ts';
import {
  certProviderOf,
  mcpServerTls,
  type IdentityOptions,
  type MeshOptions,
  type RegistryBridgesOptions,
} from './options.ts';

/** What the identity needs of the other parts: who serves TLS, and the names of the identity asked for. */
export interface IdentityShared {
  readonly mesh: Pick<MeshOptions, 'rootNamespace' | 'trustDomain'>;
  readonly rdsInsecure: boolean;
  readonly registries: Pick<RegistryBridgesOptions, 'specs' | 'output' | 'mcpServerInsecure'>;
}

export interface ServeIdentity {
  /** Undefined with `--rds-insecure` (and no TLS MCP server) and no `--cert-provider`. */
  readonly provider: IdentityProvider | undefined;
  readonly tls: RdsServerOptions['tls'];
  /** The MCP server's credentials: the same provider as RDS, or plaintext with `--mcp-server-insecure`. */
  readonly mcpTls: { readonly provider: IdentityProvider } | { readonly insecure: true };
  readonly devCerts: { readonly paths: DevCertPaths; readonly generated: boolean } | undefined;
  /** The SPIFFE identity sidecars verify the RDS server by (istiod only). */
  readonly serverIdentity: string | undefined;
  readonly readiness: () => ReadinessStatus;
  readonly metrics: () => CertificateStatusLike;
}

function providerKind(o: IdentityOptions, shared: IdentityShared) {
  return certProviderOf(o, shared.rdsInsecure, mcpServerTls(shared.registries));
}

function createProvider(
  o: IdentityOptions,
  shared: IdentityShared,
  devCerts: ServeIdentity['devCerts'],
  logger: Logger,
  backoff: BackoffOptions | undefined,
): IdentityProvider | undefined {
  const clientRoot = o.clientCaFile || o.caRootCertFile;
  switch (providerKind(o, shared)) {
    case 'dev': {
      const p = devCerts!.paths;
      return new FilesIdentityProvider({
        kind: 'dev',
        certFile: p.serverCert,
        keyFile: p.serverKey,
        caFile: p.ca,
        logger,
      });
    }
    case 'files':
      return new FilesIdentityProvider({
        kind: 'files',
        certFile: o.tlsCertFile,
        keyFile: o.tlsKeyFile,
        caFile: clientRoot,
        logger,
      });
    case 'istiod':
      return new IstiodIdentityProvider({
        ca: {
          address: o.caAddress,
          rootCertFile: o.caRootCertFile,
          tokenFile: o.caTokenFile,
          serverName: o.caServerName,
        },
        identity: spiffeId(
          shared.mesh.trustDomain,
          o.podNamespace || shared.mesh.rootNamespace,
          o.serviceAccount,
        ),
        ttlMs: o.certTtlMs,
        clientRootFile: clientRoot,
        ...(backoff ? { backoff } : {}),
        logger,
      });
    default:
      return undefined;
  }
}

/** Builds and starts the provider; rejects when the files of `files`/`dev` are unusable. */
export async function startIdentity(
  o: IdentityOptions,
  shared: IdentityShared,
  logger: Logger,
  backoff?: BackoffOptions,
): Promise<ServeIdentity> {
  const kind = providerKind(o, shared);
  const devCerts =
    o.devCertsDir !== ''
      ? await ensureDevCertificates(o.devCertsDir, { namespace: shared.mesh.rootNamespace })
      : undefined;
  if (kind === 'dev' && !devCerts) throw new Error('--cert-provider dev needs --dev-certs <dir>');
  const provider = createProvider(o, shared, devCerts, logger, backoff);
  provider?.start();
  const none = { expiresAt: undefined, renewals: { success: 0, failure: 0 } };
  return {
    provider,
    tls: shared.rdsInsecure || !provider ? { insecure: true } : { provider },
    mcpTls: shared.registries.mcpServerInsecure || !provider ? { insecure: true } : { provider },
    devCerts,
    serverIdentity: provider?.status().identity,
    readiness: () => (provider ? identityReadiness(provider.status(), Date.now()) : { ready: true }),
    metrics: () => provider?.status() ?? none,
  };
}
