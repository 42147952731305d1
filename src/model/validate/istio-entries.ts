/**
 * Istio's rules (istio.io/istio pkg/config/validation) for the DestinationRule and ServiceEntry fields this
 * controller reads, applied to a spec that parsed without errors; errors and warnings as in validate/istio.ts.
 *
 * Admission only (`refuse`; DESIGN habit 12) where neither Aeraki's controller nor this one reads the field, or
 * reads it so that the output is still what Aeraki's controller writes: a DestinationRule's load balancer other
 * than consistentHash.httpHeaderName, connection pool, outlier detection, subset names and labels; a ServiceEntry's
 * endpoints, location, targetPort, duplicate port names and malformed addresses (a filter for a listener that does
 * not exist, as Aeraki writes it). Errors everywhere: hosts whose meaning is ambiguous, two subsets of one name, a
 * port 0 (a listener match on port 0 matches every port) or a port number twice (two filters for one listener),
 * an unknown resolution (it decides whether the service gets an address), and a workload selector with labels the
 * EnvoyFilter that carries them cannot have.
 */
import { ipOrCidrProblem } from './addresses.ts';
import { isDns1123Label } from '../dns.ts';
import type {
  ConnectionPoolSettings,
  ConsistentHashLB,
  DestinationRuleSpec,
  ServiceEntrySpec,
  TrafficPolicy,
} from '../objects.ts';
import type { ConfigIssue, ObjectRef } from '../result.ts';
import {
  checksOf,
  error,
  hostProblem,
  refuse,
  warn,
  wildcardHostProblem,
  type Checks,
  checkLabels,
  durationProblem,
} from './checks.ts';
import { checkExportTo } from './istio.ts';
import { isIP } from 'node:net';

const SIMPLE_LB = ['UNSPECIFIED', 'RANDOM', 'PASSTHROUGH', 'ROUND_ROBIN', 'LEAST_REQUEST', 'LEAST_CONN'];
const RESOLUTIONS = ['NONE', 'STATIC', 'DNS', 'DNS_ROUND_ROBIN'];
const LOCATIONS = ['MESH_EXTERNAL', 'MESH_INTERNAL'];
const HASH_KEYS = ['httpHeaderName', 'httpCookie', 'useSourceIp', 'httpQueryParameterName'] as const;
/** Durations that must be at least 1ms (the others only whole milliseconds). */
const POSITIVE_DURATIONS: ReadonlySet<string> = new Set([
  'tcp.connectTimeout',
  'interval',
  'baseEjectionTime',
]);
const selectorLabelsPath = (): string => 'spec.workloadSelector.labels';
const subsetLabelsPath = (i: number): string => `spec.subsets[${i}].labels`;
/** Percentages of outlier detection. */
const PERCENTAGES: ReadonlySet<string> = new Set(['maxEjectionPercent', 'minHealthPercent']);

/** Why `value` is not one of `values`, or undefined (also when there is no value). */
function enumProblem(value: string | undefined, values: readonly string[]): string | undefined {
  if (value === undefined || values.includes(value)) return undefined;
  return `unknown value "${value}" (expected one of ${values.join(', ')})`;
}

function checkEnum(
  c: Checks,
  value: string | undefined,
  values: readonly string[],
  path: string,
  report: typeof error,
): void {
  const problem = enumProblem(value, values);
  if (problem) report(c, path, problem);
}

/** True when a subset before `i` is named `name`. */
function namedBefore(subsets: DestinationRuleSpec['subsets'], i: number, name: string): boolean {
  for (let j = 0; j < i; j++) if ((subsets[j] as (typeof subsets)[number]).name === name) return true;
  return false;
}

/** The rules for DestinationRule `ref`: host, traffic policy, subsets, exportTo. */
export function destinationRuleIssues(spec: DestinationRuleSpec, ref: ObjectRef): ConfigIssue[] {
  const c = checksOf(ref);
  const problem = wildcardHostProblem(spec.host);
  if (problem) error(c, 'spec.host', problem);
  if (spec.trafficPolicy) checkTrafficPolicy(c, spec.trafficPolicy, -1);
  const subsets = spec.subsets;
  for (let i = 0; i < subsets.length; i++) {
    const s = subsets[i] as (typeof subsets)[number];
    if (!isDns1123Label(s.name)) {
      refuse(
        c,
        `spec.subsets[${i}].name`,
        `"${s.name}" is not a DNS-1123 label (lower-case letters, digits and "-", at most 63)`,
      );
    }
    if (namedBefore(subsets, i, s.name)) {
      error(c, `spec.subsets[${i}].name`, `duplicate subset name "${s.name}"`);
    }
    checkLabels(c, s.labels, subsetLabelsPath, i, true);
    if (s.trafficPolicy) checkTrafficPolicy(c, s.trafficPolicy, i);
  }
  if (spec.exportTo) checkExportTo(c, spec.exportTo, false);
  return c.issues;
}

/** The path of the traffic policy of subset `subset`, or of the DestinationRule's when it is -1. */
function policyPath(subset: number): string {
  return subset < 0 ? 'spec.trafficPolicy' : `spec.subsets[${subset}].trafficPolicy`;
}

/** A traffic policy (of subset `subset`, the DestinationRule's when -1); paths built only for an issue. */
function checkTrafficPolicy(c: Checks, tp: TrafficPolicy, subset: number): void {
  const lb = tp.loadBalancer;
  if (lb) {
    if (lb.simple !== undefined) {
      const problem = enumProblem(lb.simple, SIMPLE_LB);
      if (problem) refuse(c, `${policyPath(subset)}.loadBalancer.simple`, problem);
      if (lb.consistentHash) {
        refuse(
          c,
          `${policyPath(subset)}.loadBalancer`,
          'only one of simple and consistentHash may be set',
          'the consistent hash is used',
        );
      }
    }
    if (lb.consistentHash) checkConsistentHash(c, lb.consistentHash, subset);
  }
  if (tp.connectionPool) checkSettings(c, tp.connectionPool, subset, 'connectionPool');
  if (tp.outlierDetection) checkSettings(c, tp.outlierDetection, subset, 'outlierDetection');
}

function consistentHashPath(subset: number): string {
  return `${policyPath(subset)}.loadBalancer.consistentHash`;
}

function checkConsistentHash(c: Checks, ch: ConsistentHashLB, subset: number): void {
  const count =
    (ch.httpHeaderName !== undefined ? 1 : 0) +
    (ch.httpCookie !== undefined ? 1 : 0) +
    (ch.useSourceIp !== undefined ? 1 : 0) +
    (ch.httpQueryParameterName !== undefined ? 1 : 0);
  if (count > 1) {
    const keys = HASH_KEYS.filter((k) => ch[k] !== undefined);
    refuse(c, consistentHashPath(subset), `only one hash key may be set, got ${keys.join(', ')}`);
  } else if (count === 0) {
    warn(
      c,
      consistentHashPath(subset),
      `no hash key (${HASH_KEYS.join(', ')}): requests are not hashed, so nothing is sticky`,
    );
  }
  const cookie = ch.httpCookie;
  if (cookie?.name === '') refuse(c, `${consistentHashPath(subset)}.httpCookie.name`, 'must not be empty');
  const ttlProblem = cookie?.ttl === undefined ? undefined : durationProblem(cookie.ttl, false);
  if (ttlProblem) refuse(c, `${consistentHashPath(subset)}.httpCookie.ttl`, ttlProblem);
}

/** The numbers and durations of `connectionPool` or `outlierDetection` (`key`). */
function checkSettings(
  c: Checks,
  settings: ConnectionPoolSettings,
  subset: number,
  key: 'connectionPool' | 'outlierDetection',
): void {
  for (const field in settings.numbers) {
    const n = settings.numbers[field] as number;
    if (n < 0) refuse(c, `${policyPath(subset)}.${key}.${field}`, `must not be negative, got ${n}`);
    else if (n > 100 && PERCENTAGES.has(field)) {
      refuse(c, `${policyPath(subset)}.${key}.${field}`, `must be at most 100, got ${n}`);
    }
  }
  for (const field in settings.durations) {
    const d = settings.durations[field] as string;
    const problem = durationProblem(d, POSITIVE_DURATIONS.has(field));
    if (problem) refuse(c, `${policyPath(subset)}.${key}.${field}`, problem);
  }
}

/** The rules for ServiceEntry `ref`: hosts, addresses, ports, enums, workload selector and endpoints, exportTo. */
export function serviceEntryIssues(spec: ServiceEntrySpec, ref: ObjectRef): ConfigIssue[] {
  const c = checksOf(ref);
  if (spec.hosts.length === 0) error(c, 'spec.hosts', 'a ServiceEntry needs at least one host');
  for (let i = 0; i < spec.hosts.length; i++) {
    const host = spec.hosts[i] as string;
    const problem =
      host === '*' ? 'the host "*" is not allowed in a ServiceEntry' : wildcardHostProblem(host);
    if (problem) error(c, `spec.hosts[${i}]`, problem);
  }
  for (let i = 0; i < spec.addresses.length; i++) {
    const problem = ipOrCidrProblem(spec.addresses[i] as string);
    if (problem) refuse(c, `spec.addresses[${i}]`, problem);
  }
  checkPorts(c, spec);
  checkEnum(c, spec.resolution, RESOLUTIONS, 'spec.resolution', error);
  checkEnum(c, spec.location, LOCATIONS, 'spec.location', refuse);
  if (spec.workloadSelector) {
    checkLabels(c, spec.workloadSelector.labels, selectorLabelsPath, -1);
    if (spec.endpoints && spec.endpoints.length > 0) {
      refuse(c, 'spec.workloadSelector', 'only one of workloadSelector and endpoints may be set');
    }
  }
  const endpoints = spec.endpoints ?? [];
  for (let i = 0; i < endpoints.length; i++) {
    checkEndpoint(c, (endpoints[i] as (typeof endpoints)[number]).address, spec.resolution, i);
  }
  if (spec.exportTo) checkExportTo(c, spec.exportTo, true);
  return c.issues;
}

function checkPorts(c: Checks, spec: ServiceEntrySpec): void {
  const ports = spec.ports;
  for (let i = 0; i < ports.length; i++) {
    const p = ports[i] as (typeof ports)[number];
    if (p.number === 0) error(c, `spec.ports[${i}].number`, 'must be between 1 and 65535, got 0');
    if (p.targetPort === 0) refuse(c, `spec.ports[${i}].targetPort`, 'must be between 1 and 65535, got 0');
    for (let j = 0; j < i; j++) {
      const q = ports[j] as (typeof ports)[number];
      if (q.number === p.number) {
        error(c, `spec.ports[${i}].number`, `port ${p.number} is already defined by spec.ports[${j}]`);
      }
      if (q.name === p.name) {
        refuse(c, `spec.ports[${i}].name`, `port name "${p.name}" is already used by spec.ports[${j}]`);
      }
    }
  }
}

/**
 * An endpoint address: an IP (or a Unix socket) for STATIC resolution, a domain name or an IP for DNS. Admission
 * only: endpoints are istiod's business.
 */
function checkEndpoint(c: Checks, address: string, resolution: string | undefined, i: number): void {
  const path = `spec.endpoints[${i}].address`;
  if (address === '') {
    refuse(c, path, 'required field is missing');
    return;
  }
  if (address.startsWith('unix://') || isIP(address) !== 0) return;
  if (resolution === 'STATIC' || resolution === undefined || resolution === 'NONE') {
    refuse(c, path, `"${address}" is not an IP address: STATIC resolution needs IP endpoints`);
  } else {
    const problem = hostProblem(address);
    if (problem) refuse(c, path, problem);
  }
}
