/**
 * The hosts an object binds, read from its raw form even when the object is invalid: a MetaRouter's and a
 * VirtualService's `spec.hosts`, a DestinationRule's `spec.host`, as written (not normalised). While a
 * VirtualService or DestinationRule is rejected with no valid version, the store holds these hosts for the
 * ServiceEntries of its own namespace (ConfigView.isHostHeld); a MetaRouter holds no host. Other kinds bind no
 * host here. A MetaRouter also binds the Gateways of its `spec.gateways` (boundGatewaysOf), held while it is
 * rejected with no valid version when they are in its own namespace, or in another while no valid MetaRouter binds
 * them (ConfigView.isGatewayHeld). Never throws.
 */
import { isPlainObject } from '../util/json.ts';

const HOSTS_FIELD: Readonly<Record<string, 'hosts' | 'host'>> = {
  MetaRouter: 'hosts',
  VirtualService: 'hosts',
  DestinationRule: 'host',
};

/** Hosts bound by a raw object (strings only, empty ones dropped, first-seen order, no duplicates). */
export function boundHostsOf(raw: unknown): string[] {
  if (!isPlainObject(raw)) return [];
  const kind = raw['kind'];
  const spec = raw['spec'];
  if (typeof kind !== 'string' || !bindsHosts(kind) || !isPlainObject(spec)) return [];
  const value = spec[HOSTS_FIELD[kind] ?? 'hosts'];
  const list: unknown[] = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  for (const h of list) if (typeof h === 'string' && h !== '' && !out.includes(h)) out.push(h);
  return out;
}

/** True for the kinds whose rejection can hold hosts. */
export function bindsHosts(kind: string): boolean {
  return Object.hasOwn(HOSTS_FIELD, kind);
}

/**
 * The Gateways a raw MetaRouter binds, as `<namespace>/<name>` (a bare entry is in `namespace`, the MetaRouter's),
 * first-seen order, no duplicates; none for other kinds.
 */
export function boundGatewaysOf(raw: unknown, namespace: string): string[] {
  if (!isPlainObject(raw) || raw['kind'] !== 'MetaRouter' || !isPlainObject(raw['spec'])) return [];
  const value = raw['spec']['gateways'];
  const out: string[] = [];
  if (!Array.isArray(value)) return out;
  for (const g of value) {
    if (typeof g !== 'string' || g === '') continue;
    const key = g.includes('/') ? g : `${namespace}/${g}`;
    if (!out.includes(key)) out.push(key);
  }
  return out;
}
