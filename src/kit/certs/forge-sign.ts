import { sign } from 'node:crypto';
import forge from 'node-forge';

/** What node-forge signs: a certificate or a certification request. */
interface Signable {
  siginfo: { algorithmOid: string | null };
  signatureOid: string | null;
  signature: unknown;
}

/**
 * Signs `target` (sha256 with RSA) with node:crypto over the DER of `tbs` (its to-be-signed part): forge's
 * pure-JS RSA is ~100x slower, so forge only builds the structures.
 */
export function signWithNodeCrypto(
  target: Signable,
  tbs: (t: Signable) => forge.asn1.Asn1,
  keyPem: string,
): void {
  const oid = forge.pki.oids['sha256WithRSAEncryption'] as string;
  target.siginfo.algorithmOid = oid;
  target.signatureOid = oid;
  const der = Buffer.from(forge.asn1.toDer(tbs(target)).getBytes(), 'binary');
  target.signature = sign('sha256', der, keyPem).toString('binary');
}
