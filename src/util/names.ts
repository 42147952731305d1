import { sha256Hex } from './json.ts';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_NAME = 253;

/** True when `name` is a valid Kubernetes object name (a DNS-1123 subdomain of at most 253 characters). */
export function isDns1123Subdomain(name: string): boolean {
  return name.length > 0 && name.length <= MAX_NAME && DNS1123_SUBDOMAIN.test(name);
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
