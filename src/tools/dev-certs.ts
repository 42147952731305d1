import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import forge from 'node-forge';
import { signWithNodeCrypto } from '../kit/certs/forge-sign.ts';

/**
 * Development certificates for the RDS server (`aeraki certs --out DIR`) and for tests: a CA, a server
 * certificate (SANs for localhost and the in-cluster service names) and a client certificate with a SPIFFE URI
 * SAN, built with node-forge (keys from node:crypto). Not for production: there cert-manager or Istio issue them.
 */
export interface DevCertOptions {
  /** Namespace of the controller's Service (SANs `aeraki.<ns>`, `aeraki.<ns>.svc`, ...). Default istio-system. */
  readonly namespace?: string;
  /** Name of the controller's Service. Default aeraki. */
  readonly serviceName?: string;
  /** Client certificate identity. */
  readonly clientCommonName?: string;
  readonly clientSpiffeId?: string;
  /** Extra DNS SANs for the server certificate. */
  readonly extraDnsNames?: readonly string[];
  readonly validityDays?: number;
  /** RSA key size. Default 2048. */
  readonly keyBits?: number;
  /** Common name of the CA (tests make a second, foreign CA with another name). */
  readonly caCommonName?: string;
  /** Issue from this existing CA instead of a new one (rotation). */
  readonly issuer?: { readonly cert: string; readonly key: string };
}

export interface DevCertPems {
  readonly ca: string;
  readonly caKey: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

export interface DevCertPaths {
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

interface KeyPair {
  readonly privateKey: forge.pki.rsa.PrivateKey;
  readonly publicKey: forge.pki.rsa.PublicKey;
  readonly pem: string;
}

function newKey(bits: number): KeyPair {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: bits,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const priv = forge.pki.privateKeyFromPem(privateKey);
  const pub = forge.pki.setRsaPublicKey(priv.n, priv.e);
  return { privateKey: priv, publicKey: pub, pem: privateKey };
}

function baseCert(subjectCn: string, publicKey: forge.pki.PublicKey, days: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // Positive serial: clear the top bit of 16 random bytes.
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  cert.serialNumber = serial.toString('hex');
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 5 * 60_000);
  cert.validity.notAfter = new Date(now + days * 86_400_000);
  cert.setSubject([
    { name: 'commonName', value: subjectCn },
    { name: 'organizationName', value: 'aeraki.net' },
  ]);
  return cert;
}

/** Signs with node:crypto; forge only builds the DER. */
function signWith(cert: forge.pki.Certificate, issuerKeyPem: string): void {
  const pki = forge.pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 };
  const tbs = (): forge.asn1.Asn1 => {
    const t = pki.getTBSCertificate(cert);
    (cert as unknown as { tbsCertificate: forge.asn1.Asn1 }).tbsCertificate = t;
    return t;
  };
  signWithNodeCrypto(cert, tbs, issuerKeyPem);
}

/** Generates everything in memory. */
export function generateDevCertificates(opts: DevCertOptions = {}): DevCertPems {
  const ns = opts.namespace ?? 'istio-system';
  const svc = opts.serviceName ?? 'aeraki';
  const days = opts.validityDays ?? 365;
  const bits = opts.keyBits ?? 2048;

  let ca: forge.pki.Certificate;
  let caKeyPem: string;
  if (opts.issuer) {
    ca = forge.pki.certificateFromPem(opts.issuer.cert);
    caKeyPem = opts.issuer.key;
  } else {
    const caKey = newKey(bits);
    caKeyPem = caKey.pem;
    ca = baseCert(opts.caCommonName ?? 'Aeraki development CA', caKey.publicKey, days * 2);
    ca.setIssuer(ca.subject.attributes);
    ca.setExtensions([
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ]);
    signWith(ca, caKeyPem);
  }

  const leaf = (cn: string, altNames: object[], serverAuth: boolean, key: KeyPair): string => {
    const cert = baseCert(cn, key.publicKey, days);
    cert.setIssuer(ca.subject.attributes);
    cert.setExtensions([
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth, clientAuth: true },
      { name: 'subjectAltName', altNames },
      { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
    ]);
    signWith(cert, caKeyPem);
    return forge.pki.certificateToPem(cert);
  };

  const dnsNames = [
    'localhost',
    svc,
    `${svc}.${ns}`,
    `${svc}.${ns}.svc`,
    `${svc}.${ns}.svc.cluster.local`,
    ...(opts.extraDnsNames ?? []),
  ];
  const serverKey = newKey(bits);
  const serverCert = leaf(
    `${svc}.${ns}.svc`,
    [...dnsNames.map((value) => ({ type: 2, value })), { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }],
    true,
    serverKey,
  );
  const clientKey = newKey(bits);
  const clientCert = leaf(
    opts.clientCommonName ?? 'meta-proxy',
    [{ type: 6, value: opts.clientSpiffeId ?? 'spiffe://cluster.local/ns/default/sa/meta-proxy' }],
    false,
    clientKey,
  );
  return {
    ca: forge.pki.certificateToPem(ca),
    caKey: caKeyPem,
    serverCert,
    serverKey: serverKey.pem,
    clientCert,
    clientKey: clientKey.pem,
  };
}

/**
 * A client certificate from an existing CA (tests of who may read routes): subject CN `commonName`, the given
 * URI SANs (none at all when empty), client authentication only.
 */
export function issueClientCertificate(
  issuer: { readonly cert: string; readonly key: string },
  opts: { readonly commonName: string; readonly uris: readonly string[]; readonly keyBits?: number },
): { readonly cert: string; readonly key: string } {
  const ca = forge.pki.certificateFromPem(issuer.cert);
  const key = newKey(opts.keyBits ?? 2048);
  const cert = baseCert(opts.commonName, key.publicKey, 30);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: false, clientAuth: true },
    ...(opts.uris.length > 0
      ? [{ name: 'subjectAltName', altNames: opts.uris.map((value) => ({ type: 6, value })) }]
      : []),
  ]);
  signWith(cert, issuer.key);
  return { cert: forge.pki.certificateToPem(cert), key: key.pem };
}

/** The five files of a development certificate set in `dir`. */
export function devCertPaths(dir: string): DevCertPaths {
  return {
    ca: path.join(dir, 'ca.crt'),
    serverCert: path.join(dir, 'server.crt'),
    serverKey: path.join(dir, 'server.key'),
    clientCert: path.join(dir, 'client.crt'),
    clientKey: path.join(dir, 'client.key'),
  };
}

/** Writes ca.crt, server.crt, server.key, client.crt, client.key (keys mode 0600) into `outDir`. */
export async function writeDevCertificates(outDir: string, opts: DevCertOptions = {}): Promise<DevCertPaths> {
  const pems = generateDevCertificates(opts);
  await mkdir(outDir, { recursive: true });
  const paths = devCertPaths(outDir);
  await writeFile(paths.ca, pems.ca);
  await writeFile(paths.serverCert, pems.serverCert);
  await writeFile(paths.serverKey, pems.serverKey, { mode: 0o600 });
  await writeFile(paths.clientCert, pems.clientCert);
  await writeFile(paths.clientKey, pems.clientKey, { mode: 0o600 });
  return paths;
}

/**
 * The development certificates in `dir` for the embedded default: generated when any file is missing (or with
 * `force`, as `aeraki certs --out DIR` does), else reused, so client certificates handed out stay valid across
 * restarts. `generated` says which happened.
 */
export async function ensureDevCertificates(
  dir: string,
  opts: DevCertOptions & { force?: boolean } = {},
): Promise<{ paths: DevCertPaths; generated: boolean }> {
  const { force = false, ...certOptions } = opts;
  const paths = devCertPaths(dir);
  if (
    !force &&
    [paths.ca, paths.serverCert, paths.serverKey, paths.clientCert, paths.clientKey].every(existsSync)
  )
    return { paths, generated: false };
  return { paths: await writeDevCertificates(dir, certOptions), generated: true };
}
