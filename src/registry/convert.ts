/**
 * DubboProvider[] of one registry service → ServiceEntries (one per host), as the issue defines them:
 * - host `<service>[-<group>]`, lower-cased and DNS-safe (versions are endpoint `version` labels, not hosts);
 * - name `<registry>-<host with dots as dashes>`, made a valid object name as EnvoyFilter names are;
 * - one port `tcp-metaprotocol-dubbo` (TCP), STATIC, MESH_INTERNAL, labels `manager=Aeraki`, `registry=<name>`;
 * - endpoints: providers whose address is an IP literal and whose port is 1..65535 (others are dropped with a
 *   warning naming the registry and the provider's origin); labels from labels.ts; `aeraki_meta_locality`,
 *   `aeraki_meta_app_service_account` and a positive integer `weight` parameter carried over;
 * - the port most valid providers use wins (ties: the lowest); providers on another port keep their own port as
 *   the endpoint's target port, with a warning;
 * - one endpoint per address, port and set of labels: providers of several versions on one address and port (one
 *   process serving `1.0.0` and `2.0.0`) are one endpoint per version, as istiod accepts (its ServiceEntry
 *   validation checks each endpoint alone, and each becomes an instance of its own), so every version's subset has
 *   its endpoints; providers that differ only in what labels drop (`pid`, `timestamp`) are one endpoint;
 * - namespace: `aeraki_meta_app_namespace` of the providers, else the spec's target namespace, else the root
 *   namespace; when providers of one host disagree, the namespace most of them name wins (ties: the first in
 *   name order) and the others are dropped with a warning (one host lives in one namespace).
 * Pure and deterministic: the providers' order does not matter. Addresses (VIPs) are assigned later (vips.ts).
 */
import { isIP } from 'node:net';
import { MANAGER_LABEL, MANAGER_VALUE } from '../model/constants.ts';
import { isDns1123Label } from '../model/dns.ts';
import type { DubboProvider, RegistrySpec } from '../model/registry-bridge.ts';
import { warning, type ConfigIssue } from '../model/result.ts';
import { sha256Hex, stableStringify } from '../util/json.ts';
import { sanitizeObjectName } from '../util/names.ts';
import { endpointLabels } from './labels.ts';
import { registryRef } from './spec.ts';
import type { RegistryEndpoint, RegistryServiceEntry } from './types.ts';

export const REGISTRY_LABEL = 'registry';
export const DUBBO_PORT_NAME = 'tcp-metaprotocol-dubbo';
/** The registry service key a ServiceEntry was converted from (for people reading it). */
export const REGISTRY_SERVICE_ANNOTATION = 'aeraki.io/registry-service';
const WORKLOAD_SELECTOR_PARAM = 'aeraki_meta_workload_selector';

export interface Converted {
  /** Sorted by namespace/name; `spec.addresses` empty. */
  readonly entries: readonly RegistryServiceEntry[];
  /** Warnings: dropped endpoints, port and namespace conflicts. */
  readonly issues: readonly ConfigIssue[];
}

/** Glob (`*`, `?`) over a whole service name. */
function globMatch(pattern: string, text: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(text);
}

/** Whether the spec's allow/deny lists let a service through (empty allow = all; deny wins). */
export function isServiceAllowed(spec: Pick<RegistrySpec, 'allow' | 'deny'>, service: string): boolean {
  if (spec.deny.some((p) => globMatch(p, service))) return false;
  return spec.allow.length === 0 || spec.allow.some((p) => globMatch(p, service));
}

/** `<service>[-<group>]` lower-cased and DNS-safe; labels longer than 63 characters are cut and hashed. */
export function registryHost(service: string, group: string): string {
  const host = sanitizeObjectName(group ? `${service}-${group}` : service);
  return host
    .split('.')
    .map((l) => (l.length > 63 ? `${l.slice(0, 50).replace(/-+$/, '')}-${sha256Hex(l).slice(0, 12)}` : l))
    .join('.');
}

/** `<registry>-<host with dots as dashes>`, a valid object name. */
export function registryEntryName(registry: string, host: string): string {
  return sanitizeObjectName(`${registry}-${host.replace(/\./g, '-')}`);
}

function endpointProblem(p: DubboProvider): string | undefined {
  if (isIP(p.address) === 0) return `address "${p.address}" is not an IP address`;
  if (!Number.isInteger(p.port) || p.port < 1 || p.port > 65535) return `port ${p.port} is out of range`;
  return undefined;
}

/** The value most often seen (ties: the smallest by `compare`). */
function majority<T>(values: readonly T[], compare: (a: T, b: T) => number): T | undefined {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: T | undefined;
  for (const [v, n] of counts) {
    const bn = best === undefined ? -1 : (counts.get(best) ?? 0);
    if (n > bn || (n === bn && best !== undefined && compare(v, best) < 0)) best = v;
  }
  return best;
}

function endpointOf(p: DubboProvider): RegistryEndpoint {
  const weight = Number(p.params['weight']);
  const locality = p.params['aeraki_meta_locality'];
  const serviceAccount = p.params['aeraki_meta_app_service_account'];
  return {
    address: p.address,
    ports: { [DUBBO_PORT_NAME]: p.port },
    labels: endpointLabels(p.params, p.version),
    ...(locality ? { locality } : {}),
    ...(serviceAccount ? { serviceAccount } : {}),
    ...(Number.isInteger(weight) && weight > 0 && weight < 2 ** 32 ? { weight } : {}),
  };
}

interface HostGroup {
  readonly host: string;
  readonly service: string;
  readonly providers: DubboProvider[];
}

function byOrigin(a: DubboProvider, b: DubboProvider): number {
  return a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0;
}

/** One host's ServiceEntry, or undefined when no provider is usable. */
function convertHost(
  spec: RegistrySpec,
  rootNamespace: string,
  g: HostGroup,
  warn: (p: DubboProvider, m: string) => void,
): RegistryServiceEntry | undefined {
  const fallback = spec.namespace ?? rootNamespace;
  const nsOf = (p: DubboProvider): string => {
    const ns = p.params['aeraki_meta_app_namespace'];
    return ns !== undefined && isDns1123Label(ns) ? ns : fallback;
  };
  const valid = g.providers.filter((p) => {
    const problem = endpointProblem(p);
    if (problem) warn(p, `${problem}; endpoint dropped`);
    return problem === undefined;
  });
  const namespace = majority(valid.map(nsOf), (a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const port = majority(
    valid.map((p) => p.port),
    (a, b) => a - b,
  );
  if (namespace === undefined || port === undefined) return undefined;
  const endpoints = new Map<string, RegistryEndpoint>();
  let selector: string | undefined;
  for (const p of valid) {
    if (nsOf(p) !== namespace) {
      warn(p, `namespace ${nsOf(p)} differs from ${namespace} (host ${g.host}); endpoint dropped`);
      continue;
    }
    if (p.port !== port) warn(p, `port ${p.port} differs from the majority port ${port} of host ${g.host}`);
    selector ??= p.params[WORKLOAD_SELECTOR_PARAM] || undefined;
    const endpoint = endpointOf(p);
    const key = `${p.address}|${p.port}|${stableStringify(endpoint.labels)}`;
    if (!endpoints.has(key)) endpoints.set(key, endpoint);
  }
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'ServiceEntry',
    metadata: {
      name: registryEntryName(spec.name, g.host),
      namespace,
      labels: { [MANAGER_LABEL]: MANAGER_VALUE, [REGISTRY_LABEL]: spec.name },
      annotations: {
        [REGISTRY_SERVICE_ANNOTATION]: g.service,
        ...(selector ? { workloadSelector: selector } : {}),
      },
    },
    spec: {
      hosts: [g.host],
      addresses: [],
      ports: [{ number: port, name: DUBBO_PORT_NAME, protocol: 'TCP' }],
      location: 'MESH_INTERNAL',
      resolution: 'STATIC',
      endpoints: [...endpoints.keys()].sort().map((k) => endpoints.get(k)!),
    },
  };
}

/** Converts the providers of one registry service (all of them share `service`). */
export function convertService(
  spec: RegistrySpec,
  rootNamespace: string,
  providers: readonly DubboProvider[],
): Converted {
  const issues: ConfigIssue[] = [];
  const warn = (p: DubboProvider, message: string) =>
    issues.push(warning(registryRef(spec.name), '', `provider ${p.origin}: ${message}`));
  const groups = new Map<string, HostGroup>();
  for (const p of [...providers].sort(byOrigin)) {
    const host = registryHost(p.service, p.group);
    const g = groups.get(host);
    if (g) g.providers.push(p);
    else groups.set(host, { host, service: p.service, providers: [p] });
  }
  const entries: RegistryServiceEntry[] = [];
  for (const host of [...groups.keys()].sort()) {
    const se = convertHost(spec, rootNamespace, groups.get(host)!, warn);
    if (se) entries.push(se);
  }
  return { entries, issues };
}
