/**
 * v1 Secrets, read for the keys objects name (model/secret-refs.ts): `data` (base64) decoded, `stringData` merged
 * over it.
 */
import type { SecretSpec } from '../objects.ts';
import type { Fields, Raw } from './fields.ts';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A `data` value decoded (standard base64, whitespace ignored, as a Secret's data is); undefined when invalid. */
export function decodeSecretValue(value: string): string | undefined {
  const compact = value.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) return undefined;
  return Buffer.from(compact, 'base64').toString('utf8');
}

/** A Secret's top level (it has no spec): `data` decoded from base64, `stringData` merged over it. */
export function readSecretBody(f: Fields, raw: Raw): SecretSpec {
  const data: Record<string, string> = {};
  const encoded = f.stringMap(raw, 'data', 'data');
  for (const [key, value] of Object.entries(encoded)) {
    const decoded = decodeSecretValue(value);
    if (decoded === undefined) f.error(`data.${key}`, 'not valid base64');
    else data[key] = decoded;
  }
  Object.assign(data, f.stringMap(raw, 'stringData', 'stringData'));
  return { data };
}
