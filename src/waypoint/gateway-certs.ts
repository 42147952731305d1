/**
 * The certificates of the waypoints' xDS credentials: the controller's own waypoint CA (a self-signed root) and
 * the client certificate of each Gateway, `spiffe://<trust domain>/ns/<N>/sa/<W>` as its only SAN (the identity
 * the ADS server checks against `node.cluster: W.N`). Keys are RSA 2048 from node:crypto; node-forge only builds
 * the certificate structures, signed through kit/certs/forge-sign.ts. Times come from the injected Clock.
 */
import { X509Certificate, createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';
import { signWithNodeCrypto } from '../kit/certs/forge-sign.ts';

export interface PemPair {
  readonly cert: string;
  readonly key: string;
}

/** How long the CA lives (10 years; it is not rotated by the controller: README, Limits). */
export const CA_LIFETIME_MS = 10 * 365 * 86_400_000;
/** Default lifetime of a waypoint's client certificate; renewed at half its lifetime. */
export const LEAF_LIFETIME_MS = 24 * 3_600_000;
/** Certificates start this much before `now`, for clocks slightly behind. */
const BACKDATE_MS = 5 * 60_000;

/** The SPIFFE identity of Gateway `namespace/name`'s proxies (its ServiceAccount is named like the Gateway). */
export function waypointSpiffeId(trustDomain: string, namespace: string, name: string): string {
  return `spiffe://${trustDomain}/ns/${namespace}/sa/${name}`;
}

function newKey(): { pem: string; publicKey: forge.pki.PublicKey } {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const priv = forge.pki.privateKeyFromPem(privateKey);
  return { pem: privateKey, publicKey: forge.pki.setRsaPublicKey(priv.n, priv.e) };
}

function baseCert(publicKey: forge.pki.PublicKey, now: number, lifetimeMs: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f; // positive
  cert.serialNumber = serial.toString('hex');
  cert.validity.notBefore = new Date(now - BACKDATE_MS);
  cert.validity.notAfter = new Date(now + lifetimeMs);
  return cert;
}

function signed(cert: forge.pki.Certificate, issuerKeyPem: string): string {
  const pki = forge.pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 };
  signWithNodeCrypto(
    cert,
    () => {
      const tbs = pki.getTBSCertificate(cert);
      (cert as unknown as { tbsCertificate: forge.asn1.Asn1 }).tbsCertificate = tbs;
      return tbs;
    },
    issuerKeyPem,
  );
  return forge.pki.certificateToPem(cert);
}

/** A new self-signed CA for the waypoints' client certificates. */
export function newWaypointCa(now: number, trustDomain: string): PemPair {
  const key = newKey();
  const cert = baseCert(key.publicKey, now, CA_LIFETIME_MS);
  const subject = [
    { name: 'commonName', value: 'Aeraki waypoint CA' },
    { name: 'organizationName', value: trustDomain },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  return { cert: signed(cert, key.pem), key: key.pem };
}

/** A client certificate for `spiffeId` issued by `ca`, valid `lifetimeMs` from `now`. */
export function issueWaypointCertificate(
  ca: PemPair,
  spiffeId: string,
  now: number,
  lifetimeMs = LEAF_LIFETIME_MS,
): PemPair {
  const issuer = forge.pki.certificateFromPem(ca.cert);
  const key = newKey();
  const cert = baseCert(key.publicKey, now, lifetimeMs);
  cert.setSubject([]);
  cert.setIssuer(issuer.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true },
    // A certificate with an empty subject must mark its SAN critical (RFC 5280 4.2.1.6).
    { name: 'subjectAltName', altNames: [{ type: 6, value: spiffeId }], critical: true },
    { name: 'authorityKeyIdentifier', keyIdentifier: issuer.generateSubjectKeyIdentifier().getBytes() },
  ]);
  return { cert: signed(cert, ca.key), key: key.pem };
}

/** True when `pair` is a CA certificate (basicConstraints CA) with its matching key. */
export function isCaPair(pair: PemPair): boolean {
  try {
    const cert = new X509Certificate(pair.cert);
    return cert.ca && cert.checkPrivateKey(createPrivateKey(pair.key));
  } catch {
    return false;
  }
}

/** What a held client certificate is worth: valid for `spiffeId`, issued by `caCert`, its key matching. */
export interface HeldCertificate {
  readonly notBefore: number;
  readonly notAfter: number;
}

/**
 * The validity of `pair` when it is a certificate for `spiffeId` issued by `caCert` with the matching key;
 * undefined when it is not (unparsable, another identity, another issuer, a foreign key).
 */
export function checkHeldCertificate(
  pair: PemPair,
  caCert: string,
  spiffeId: string,
): HeldCertificate | undefined {
  try {
    const leaf = new X509Certificate(pair.cert);
    const ca = new X509Certificate(caCert);
    if (!leaf.verify(ca.publicKey) || !leaf.checkIssued(ca)) return undefined;
    if (!leaf.checkPrivateKey(createPrivateKey(pair.key))) return undefined;
    if ((leaf.subjectAltName ?? '') !== `URI:${spiffeId}`) return undefined;
    return { notBefore: Date.parse(leaf.validFrom), notAfter: Date.parse(leaf.validTo) };
  } catch {
    return undefined;
  }
}

/** When a certificate is renewed: at half its lifetime. */
export function renewalTime(held: HeldCertificate): number {
  return held.notBefore + BACKDATE_MS + Math.floor((held.notAfter - held.notBefore - BACKDATE_MS) / 2);
}
