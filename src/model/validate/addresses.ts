/**
 * Address and label syntax Istio validates in the objects it reads: IP addresses and CIDR blocks
 * (ServiceEntry `addresses`, ValidateIPSubnet), Kubernetes label keys and values (DestinationRule subset labels,
 * workload selectors: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set).
 * Scans of char codes, no regex per value: every label of every subset goes through here.
 */
import { isIP } from 'node:net';
import { isDns1123Subdomain } from '../../util/names.ts';

const MAX_LABEL_NAME = 63;

/** True when `s` up to `end` is a dotted-quad IPv4 address (no leading zeros): one scan, no regex. */
function isIPv4To(s: string, end: number): boolean {
  let parts = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= end; i++) {
    const c = i < end ? s.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || parts === 4) return false;
      parts++;
      value = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (digits > 0 && value === 0) return false; // a leading zero
      value = value * 10 + (c - 0x30);
      digits++;
      if (value > 255) return false;
    } else return false;
  }
  return parts === 4;
}

/** Why `address` is neither an IP address nor a CIDR block (`10.0.0.0/8`, `2001:db8::/32`), or undefined. */
export function ipOrCidrProblem(address: string): string | undefined {
  const slash = address.indexOf('/');
  const end = slash < 0 ? address.length : slash;
  const family = isIPv4To(address, end) ? 4 : isIP(address.slice(0, end)) === 6 ? 6 : 0;
  if (family === 0) return `"${address}" is neither an IP address nor a CIDR block`;
  if (slash < 0) return undefined;
  const prefix = address.slice(slash + 1);
  const bits = family === 4 ? 32 : 128;
  const n = /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
  if (n < 0 || n > bits) return `"${address}": the prefix length must be between 0 and ${bits}`;
  return undefined;
}

function isAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

/** A label name or value: 1 to 63 of [A-Za-z0-9-_.], starting and ending with [A-Za-z0-9]. */
function isLabelName(s: string, start: number): boolean {
  const n = s.length - start;
  if (n < 1 || n > MAX_LABEL_NAME) return false;
  if (!isAlnum(s.charCodeAt(start)) || !isAlnum(s.charCodeAt(s.length - 1))) return false;
  for (let i = start + 1; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (!isAlnum(c) && c !== 0x2d && c !== 0x5f && c !== 0x2e) return false;
  }
  return true;
}

/** Why `key` is not a label key (`[prefix/]name`, prefix a DNS-1123 subdomain), or undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefixOk = slash < 0 || isDns1123Subdomain(key.slice(0, slash));
  if (prefixOk && isLabelName(key, slash + 1)) return undefined;
  return (
    `"${key}" is not a label key: an optional DNS subdomain and "/", then 1 to 63 letters, digits, ` +
    '"-", "_" or ".", starting and ending with a letter or digit'
  );
}

/** Why `value` is not a label value (empty, or as a label name), or undefined. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '' || isLabelName(value, 0)) return undefined;
  return (
    `"${value}" is not a label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a ` +
    'letter or digit'
  );
}
