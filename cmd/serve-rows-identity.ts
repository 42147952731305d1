/**
 * `aeraki serve` options of the controller's own certificate (src/identity/): which provider issues it and, for
 * `istiod`, where Istio's CA is, how the controller authenticates to it and which identity it asks for; for
 * `files` and `dev`, where the certificate is. The defaults fit a pod of manifests/ (the mounted mesh root, the
 * projected token with audience `istio-ca`).
 */
import { InvalidArgumentError } from 'commander';
import { certProviderOf, mcpServerTls, type IdentityOptions } from '../src/app/options.ts';
import type { CertProviderKind } from '../src/identity/types.ts';
import { formatDurationMs, oneOf, parseDurationMs, parseNamespace, text } from './parsers.ts';
import type { RowTable } from './rows.ts';
import type { RdsFlags } from './serve-rows-rds.ts';
import { registryOptions, type RegistryFlags } from './serve-rows-registries.ts';

const MIN_CERT_TTL_MS = 10_000;

/** `--cert-ttl`: any duration from 10s. */
export function parseCertTtl(raw: string): number {
  const ms = parseDurationMs(raw);
  if (ms < MIN_CERT_TTL_MS)
    throw new InvalidArgumentError(`a certificate lifetime must be at least 10s, got "${raw}"`);
  return ms;
}
parseCertTtl.format = formatDurationMs;

const SERVICE_ACCOUNT = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function parseServiceAccount(raw: string): string {
  if (!SERVICE_ACCOUNT.test(raw))
    throw new InvalidArgumentError(`"${raw}" is not a valid service account name`);
  return raw;
}

export interface IdentityFlags {
  readonly certProvider: CertProviderKind | undefined;
  readonly caAddress: string;
  readonly caRootCertFile: string;
  readonly caTokenFile: string;
  readonly caServerName: string;
  readonly podNamespace: string;
  readonly serviceAccount: string;
  readonly certTtlMs: number;
  readonly tlsCertFile: string;
  readonly tlsKeyFile: string;
  readonly clientCaFile: string;
  readonly devCertsDir: string;
}

export const IDENTITY_ROWS = {
  certProvider: {
    flag: '--cert-provider <provider>',
    env: 'AERAKI_CERT_PROVIDER',
    default: undefined,
    description:
      "who issues the RDS serving certificate: istiod (Istio's CA) | files (--tls-cert-file) | dev (--dev-certs) (default: files with --tls-cert-file, dev with --dev-certs, else istiod)",
    parse: oneOf('istiod', 'files', 'dev'),
  },
  caAddress: {
    flag: '--ca-address <host:port>',
    env: 'AERAKI_CA_ADDRESS',
    default: '',
    description: "Istio's CA (default: the istiod host of --istiod-address on port 15012)",
    parse: text,
  },
  caRootCertFile: {
    flag: '--ca-root-cert-file <file>',
    env: 'AERAKI_CA_ROOT_CERT_FILE',
    default: '/var/run/secrets/istio/root-cert.pem',
    description:
      'mesh root (PEM): verifies the CA, and RDS clients unless --client-ca-file is given; watched',
    parse: text,
  },
  caTokenFile: {
    flag: '--ca-token-file <file>',
    env: 'AERAKI_CA_TOKEN_FILE',
    default: '/var/run/secrets/tokens/istio-token',
    description: 'service account token (audience istio-ca) sent to the CA; read at every request',
    parse: text,
  },
  caServerName: {
    flag: '--ca-server-name <name>',
    env: 'AERAKI_CA_SERVER_NAME',
    default: 'istiod.istio-system.svc',
    description: "the name the CA's certificate is verified for",
    parse: text,
  },
  podNamespace: {
    flag: '--pod-namespace <namespace>',
    env: 'POD_NAMESPACE',
    default: '',
    description: 'namespace of the identity asked for (default: the root namespace)',
    parse: parseNamespace,
  },
  serviceAccount: {
    flag: '--service-account <name>',
    env: 'SERVICE_ACCOUNT',
    default: 'aeraki',
    description: 'service account of the identity asked for',
    parse: parseServiceAccount,
  },
  certTtlMs: {
    flag: '--cert-ttl <duration>',
    env: 'AERAKI_CERT_TTL',
    default: 86_400_000,
    description: 'lifetime asked for each certificate from the CA (from 10s); renewed at 80% minus jitter',
    parse: parseCertTtl,
  },
  tlsCertFile: {
    flag: '--tls-cert-file <file>',
    env: 'AERAKI_TLS_CERT_FILE',
    default: '',
    description: 'RDS server certificate (PEM; --cert-provider files)',
    parse: text,
  },
  tlsKeyFile: {
    flag: '--tls-key-file <file>',
    env: 'AERAKI_TLS_KEY_FILE',
    default: '',
    description: 'RDS server key (PEM)',
    parse: text,
  },
  clientCaFile: {
    flag: '--client-ca-file <file>',
    env: 'AERAKI_CLIENT_CA_FILE',
    default: '',
    description:
      'CA that RDS client certificates must chain to (default: --ca-root-cert-file, the mesh root)',
    parse: text,
  },
  devCertsDir: {
    flag: '--dev-certs <dir>',
    env: 'AERAKI_DEV_CERTS',
    default: '',
    description:
      'serve RDS (and the webhook, without its own files) with development certificates from <dir>, generated when missing',
    parse: text,
  },
} satisfies RowTable<IdentityFlags>;

/** The certificate provider the options choose (certProviderOf), from the flags. */
export function certProviderOfFlags(
  f: IdentityFlags & RdsFlags & RegistryFlags,
): CertProviderKind | undefined {
  return certProviderOf(f, f.rdsInsecure, mcpServerTls(registryOptions(f)));
}

export function identityOptions(f: IdentityFlags): IdentityOptions {
  return {
    certProvider: f.certProvider,
    tlsCertFile: f.tlsCertFile,
    tlsKeyFile: f.tlsKeyFile,
    clientCaFile: f.clientCaFile,
    devCertsDir: f.devCertsDir,
    caAddress: f.caAddress,
    caRootCertFile: f.caRootCertFile,
    caTokenFile: f.caTokenFile,
    caServerName: f.caServerName,
    podNamespace: f.podNamespace,
    serviceAccount: f.serviceAccount,
    certTtlMs: f.certTtlMs,
  };
}
