/**
 * The rules Istio's own validation (istio.io/istio pkg/config/validation) applies to the VirtualService fields
 * this controller reads, applied to a spec that parsed without errors: an error where Istio would reject the
 * object or a proxy would refuse what comes of it, a warning where the object is legal but will not do what it
 * says. Each issue names the field path. DestinationRule and ServiceEntry rules: validate/istio-entries.ts.
 *
 * Where Istio is more lenient than the user probably meant, a warning instead of an error: weights of a split
 * that do not add up to 100 (Istio and the proxies split in proportion; only a total of 0 is rejected), a
 * mirrorPercentage without a mirror.
 *
 * Admission is strict, the controller tolerant (DESIGN habit 12): what this controller (like Aeraki's) never reads
 * is admission only (`refuse`): the destination host and port, mirror, timeout and retries of an HTTP route (the
 * Dubbo and Thrift routes use the match, subset and weight), the TCP and TLS routes, and exportTo. Errors
 * everywhere: hosts whose meaning is ambiguous, and what the Dubbo proxy would refuse (an empty header name, a
 * regex that is empty or not RE2, an HTTP split whose weights add up to 0).
 */
import { isIP } from 'node:net';
import { isDns1123Label } from '../dns.ts';
import type {
  HTTPMatchRequest,
  HTTPRoute,
  RouteDestination,
  StringMatch,
  TLSRoute,
  TCPRoute,
  VirtualServiceSpec,
} from '../objects.ts';
import type { ConfigIssue, ObjectRef } from '../result.ts';
import { re2Problem } from './re2.ts';
import {
  checksOf,
  error,
  refuse,
  warn,
  wildcardHostProblem,
  type Checks,
  checkDestination,
  durationProblem,
  type PathOf,
} from './checks.ts';

/** The route lists of a VirtualService. */
type Section = 'http' | 'tcp' | 'tls';

/** The path of route `i` of `section`. */
function routePath(section: Section, i: number): string {
  return `spec.${section}[${i}]`;
}

/** The path of destination `j` of route `i` of each section, or of the route's mirror when `j` is -1. */
const DESTINATION_PATHS: Readonly<Record<Section, PathOf>> = {
  http: (i, j) =>
    j < 0 ? `${routePath('http', i)}.mirror` : `${routePath('http', i)}.route[${j}].destination`,
  tcp: (i, j) => `${routePath('tcp', i)}.route[${j}].destination`,
  tls: (i, j) => `${routePath('tls', i)}.route[${j}].destination`,
};

/** The rules for VirtualService `ref`; issues in field order: hosts, http, tcp, tls, exportTo. */
export function virtualServiceIssues(spec: VirtualServiceSpec, ref: ObjectRef): ConfigIssue[] {
  const c = checksOf(ref);
  checkVirtualServiceHosts(c, spec);
  for (let i = 0; i < spec.http.length; i++) checkHttpRoute(c, spec.http[i] as HTTPRoute, i);
  for (let i = 0; i < spec.tcp.length; i++) checkL4Route(c, spec.tcp[i] as TCPRoute, 'tcp', i);
  const tls = spec.tls ?? [];
  for (let i = 0; i < tls.length; i++) checkTlsRoute(c, tls[i] as TLSRoute, i);
  if (spec.exportTo) checkExportTo(c, spec.exportTo, false);
  return c.issues;
}

function checkVirtualServiceHosts(c: Checks, spec: VirtualServiceSpec): void {
  if (spec.hosts.length === 0) {
    refuse(c, 'spec.hosts', 'a VirtualService needs at least one host: this one applies to no service');
  }
  const mesh = spec.gateways.length === 0 || spec.gateways.includes('mesh');
  for (let i = 0; i < spec.hosts.length; i++) {
    const host = spec.hosts[i] as string;
    if (host === '*' && mesh) {
      error(
        c,
        `spec.hosts[${i}]`,
        'the wildcard host "*" is not allowed for a VirtualService bound to the mesh',
      );
    } else if (isIP(host) === 0) {
      const problem = wildcardHostProblem(host);
      if (problem) error(c, `spec.hosts[${i}]`, problem);
    }
  }
}

/** Why the regex of a StringMatch is refused (non-empty RE2: Envoy compiles it with google_re2), or undefined. */
function regexProblem(m: StringMatch): string | undefined {
  if (m.regex === undefined) return undefined;
  if (m.regex === '') return 'a regex must not be empty';
  const problem = re2Problem(m.regex);
  return problem ? `not a valid RE2 regex (${problem})` : undefined;
}

/** Match `k` of HTTP route `i`. */
function checkHttpMatch(c: Checks, m: HTTPMatchRequest, i: number, k: number): void {
  const methodProblem = m.method ? regexProblem(m.method) : undefined;
  if (methodProblem) error(c, `${httpMatchPath(i, k)}.method.regex`, methodProblem);
  const headers = m.headers;
  for (const name in headers) {
    if (name === '') error(c, headerPath(i, k, name), 'a header name must not be empty');
    const problem = regexProblem(headers[name] as StringMatch);
    if (problem) error(c, `${headerPath(i, k, name)}.regex`, problem);
  }
}

function httpMatchPath(i: number, k: number): string {
  return `${routePath('http', i)}.match[${k}]`;
}

function headerPath(i: number, k: number, name: string): string {
  return `${httpMatchPath(i, k)}.headers${name === '' ? '[""]' : `.${name}`}`;
}

function checkHttpRoute(c: Checks, r: HTTPRoute, i: number): void {
  for (let k = 0; k < r.match.length; k++) checkHttpMatch(c, r.match[k] as HTTPMatchRequest, i, k);
  checkDestinations(c, r.route, 'http', i);
  if (r.mirror) checkDestination(c, r.mirror, true, DESTINATION_PATHS.http, i, -1);
  if (r.mirrorPercentage) {
    const value = r.mirrorPercentage.value ?? 0;
    if (value < 0 || value > 100) {
      refuse(c, `${routePath('http', i)}.mirrorPercentage.value`, `must be between 0 and 100, got ${value}`);
    }
    if (!r.mirror) {
      warn(
        c,
        `${routePath('http', i)}.mirrorPercentage`,
        'mirrorPercentage without mirror: nothing is mirrored',
      );
    }
  }
  const timeoutProblem = r.timeout === undefined ? undefined : durationProblem(r.timeout, false);
  if (timeoutProblem) refuse(c, `${routePath('http', i)}.timeout`, timeoutProblem);
  const retries = r.retries;
  if (retries) {
    if (retries.attempts !== undefined && retries.attempts < 0) {
      refuse(c, `${routePath('http', i)}.retries.attempts`, `must not be negative, got ${retries.attempts}`);
    }
    const perTry = retries.perTryTimeout;
    const perTryProblem = perTry === undefined ? undefined : durationProblem(perTry, true);
    if (perTryProblem) refuse(c, `${routePath('http', i)}.retries.perTryTimeout`, perTryProblem);
  }
}

/** A TCP or TLS route: at least one destination, each valid, and a split with a positive total. */
function checkL4Route(c: Checks, r: TCPRoute | TLSRoute, section: 'tcp' | 'tls', i: number): void {
  if (r.route.length === 0) {
    refuse(
      c,
      `${routePath(section, i)}.route`,
      `a ${section.toUpperCase()} route needs at least one destination`,
    );
  }
  checkDestinations(c, r.route, section, i);
}

/** A TLS route: every match names SNI hosts (Istio requires them), then as a TCP route. */
function checkTlsRoute(c: Checks, r: TLSRoute, i: number): void {
  const path = routePath('tls', i);
  if (r.match.length === 0) refuse(c, `${path}.match`, 'a TLS route needs at least one match with sniHosts');
  for (let k = 0; k < r.match.length; k++) {
    const m = r.match[k] as (typeof r.match)[number];
    if (m.sniHosts.length === 0)
      refuse(c, `${path}.match[${k}].sniHosts`, 'at least one SNI host is required');
    for (let n = 0; n < m.sniHosts.length; n++) {
      const problem = wildcardHostProblem(m.sniHosts[n] as string);
      if (problem) refuse(c, `${path}.match[${k}].sniHosts[${n}]`, problem);
    }
  }
  checkL4Route(c, r, 'tls', i);
}

/**
 * The destinations of route `i` of `section`: each valid; a split's weights add up to more than 0 (and should to
 * 100).
 */
function checkDestinations(c: Checks, route: readonly RouteDestination[], section: Section, i: number): void {
  let total = 0;
  for (let j = 0; j < route.length; j++) {
    const d = route[j] as RouteDestination;
    checkDestination(c, d.destination, true, DESTINATION_PATHS[section], i, j);
    total += d.weight ?? 0;
  }
  if (route.length < 2 || total === 100) return;
  if (total === 0) {
    // Only HTTP routes become Dubbo and Thrift routes; a TCP or TLS route is read by no generator.
    (section === 'http' ? error : refuse)(
      c,
      `${routePath(section, i)}.route`,
      'the weights of several destinations add up to 0: no destination gets traffic',
    );
  } else {
    warn(
      c,
      `${routePath(section, i)}.route`,
      `the weights of several destinations add up to ${total}, not 100: traffic is split in proportion to them`,
    );
  }
}

/**
 * Istio's exportTo rules (VirtualService, DestinationRule, ServiceEntry): entries `.`, `*`, `~` or a namespace
 * name, no duplicates (`.` is the own namespace), `*` alone, and `~` alone (only a ServiceEntry may use `~`). All
 * admission only: the exportTo of an Istio object is istiod's business; neither Aeraki's controller nor this one
 * reads it.
 */
export function checkExportTo(c: Checks, exportTo: readonly string[], serviceEntry: boolean): void {
  const seen = new Set<string>();
  exportTo.forEach((e, i) => {
    const key = e === '.' ? c.ref.namespace : e;
    if (seen.has(key)) refuse(c, `spec.exportTo[${i}]`, `duplicate entry "${e}"`);
    seen.add(key);
    if (e === '~' && !serviceEntry) {
      refuse(c, `spec.exportTo[${i}]`, '"~" (export to no namespace) is only allowed in a ServiceEntry');
    } else if (e !== '.' && e !== '*' && e !== '~' && !isDns1123Label(e)) {
      refuse(c, `spec.exportTo[${i}]`, `"${e}" is neither ".", "*", "~" nor a namespace name`);
    }
  });
  if (exportTo.length > 1 && (seen.has('*') || seen.has('~'))) {
    refuse(c, 'spec.exportTo', '"*" and "~" cannot be combined with other entries');
  }
}
