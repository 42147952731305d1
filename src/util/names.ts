import { sha256Hex } from './json.ts';

const MAX_NAME = 253;
const DOT = 0x2e;
const DASH = 0x2d;

function isAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39); // a-z, 0-9
}

/**
 * True when `name` is a valid Kubernetes object name: a DNS-1123 subdomain of at most 253 characters, i.e.
 * dot-separated labels of [a-z0-9-] that start and end with [a-z0-9]. A scan of char codes rather than the
 * equivalent regular expression: every generated object name goes through here.
 */
export function isDns1123Subdomain(name: string): boolean {
  const n = name.length;
  if (n === 0 || n > MAX_NAME) return false;
  let prev = DOT; // as if preceded by a label separator: the first character must start a label
  for (let i = 0; i < n; i++) {
    const c = name.charCodeAt(i);
    if (c === DOT) {
      if (!isAlnum(prev)) return false; // empty label, or a label ending in '-'
    } else if (c === DASH) {
      if (prev === DOT) return false; // a label starting with '-'
    } else if (!isAlnum(c)) {
      return false;
    }
    prev = c;
  }
  return isAlnum(prev);
}

function trimSeparators(s: string): string {
  return s.replace(/^[-.]+/, '').replace(/[-.]+$/, '');
}

/**
 * Makes an object name valid (deviation D7 of the render fixtures). Valid names are returned unchanged.
 * Otherwise: lower-case; characters outside [a-z0-9.-] become `-`; every run of `-`/`.` containing a `.`
 * collapses to one `.`; separators at either end are removed; a name still longer than 253 characters is cut
 * to 240 (separators at the end removed again) and suffixed with `-` and 12 hex characters of the SHA-256 of
 * the original name.
 */
export function sanitizeObjectName(original: string): string {
  if (isDns1123Subdomain(original)) return original;
  let name = original.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  name = name.replace(/[-.]*\.[-.]*/g, '.');
  name = trimSeparators(name);
  if (name.length > MAX_NAME) {
    name = `${trimSeparators(name.slice(0, 240))}-${sha256Hex(original).slice(0, 12)}`;
  }
  return name;
}
