/**
 * A fresh key pair and a PKCS#10 certificate request for a SPIFFE identity, as the Istio agent sends them: RSA
 * 2048, an empty subject and the identity as the only (critical) URI SAN. Istio's CA takes the identity from the
 * authenticated caller, not from the request, but checks that the request is well-formed and signed.
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';
import { signWithNodeCrypto } from './forge-sign.ts';

const generate = promisify(generateKeyPair);

export interface CertificateRequest {
  /** PKCS#8 PEM private key. */
  readonly keyPem: string;
  readonly csrPem: string;
}

/** Generates the key off the main thread (node:crypto) and signs the request with it. */
export async function newCertificateRequest(identity: string, keyBits = 2048): Promise<CertificateRequest> {
  const { privateKey, publicKey } = await generate('rsa', {
    modulusLength: keyBits,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = forge.pki.publicKeyFromPem(publicKey);
  csr.setAttributes([
    {
      name: 'extensionRequest',
      extensions: [{ name: 'subjectAltName', critical: true, altNames: [{ type: 6, value: identity }] }],
    },
  ]);
  const pki = forge.pki as unknown as {
    getCertificationRequestInfo(c: forge.pki.CertificateSigningRequest): forge.asn1.Asn1;
  };
  const info = (): forge.asn1.Asn1 => {
    const cri = pki.getCertificationRequestInfo(csr);
    (csr as unknown as { certificationRequestInfo: forge.asn1.Asn1 }).certificationRequestInfo = cri;
    return cri;
  };
  signWithNodeCrypto(csr, info, privateKey);
  return { keyPem: privateKey, csrPem: forge.pki.certificationRequestToPem(csr) };
}
