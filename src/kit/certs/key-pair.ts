import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A PEM certificate (chain) and its private key, read together. */
export interface KeyPair {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/**
 * Reads a serving certificate and its key; throws when a file is missing, does not parse, or the key does not
 * match the certificate (a half-written rotation), so a caller can keep its previous pair.
 */
export function readKeyPair(certFile: string, keyFile: string): KeyPair {
  const cert = readFileSync(certFile);
  const key = readFileSync(keyFile);
  const leaf = new X509Certificate(cert);
  if (!leaf.checkPrivateKey(createPrivateKey(key))) {
    throw new Error(`${keyFile} does not match the certificate in ${certFile}`);
  }
  return { cert, key };
}
