/**
 * Endpoint labels from a Dubbo provider's parameters: the parameters that are valid Kubernetes label keys and
 * values, except those that change on every restart (`pid`, `timestamp`, ...), lists (`methods`, any value with a
 * comma) and the `aeraki_meta_*` parameters the conversion reads itself; plus `version` from the provider's version.
 */
import { isDns1123Subdomain } from '../util/names.ts';

/** Parameters never copied: volatile per process start, long lists, or read by the conversion. */
const EXCLUDED = new Set(['pid', 'timestamp', 'methods', 'startTime', 'REGISTRY_CLUSTER', 'version']);
const META_PREFIX = 'aeraki_meta_';
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** A Kubernetes label value: empty, or at most 63 characters of [A-Za-z0-9-_.] starting and ending alphanumeric. */
export function isLabelValue(v: string): boolean {
  return v === '' || (v.length <= 63 && NAME.test(v));
}

/** A Kubernetes label key: `[prefix/]name`, the prefix a DNS-1123 subdomain of at most 253 characters. */
export function isLabelKey(k: string): boolean {
  const slash = k.indexOf('/');
  const name = slash < 0 ? k : k.slice(slash + 1);
  if (slash >= 0 && !isDns1123Subdomain(k.slice(0, slash))) return false;
  return name.length > 0 && name.length <= 63 && NAME.test(name);
}

/** The labels of one endpoint, keys sorted. `version` (when valid) comes from the provider's version. */
export function endpointLabels(
  params: Readonly<Record<string, string>>,
  version: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(params).sort()) {
    const value = params[key] ?? '';
    if (EXCLUDED.has(key) || key.startsWith(META_PREFIX) || value.includes(',')) continue;
    if (isLabelKey(key) && isLabelValue(value)) out[key] = value;
  }
  const v = version || (params[`${META_PREFIX}app_version`] ?? '');
  if (v !== '' && isLabelValue(v)) out['version'] = v;
  return out;
}
