/**
 * The rules Istio's own validation (istio.io/istio pkg/config/validation) applies to the VirtualService fields
 * this controller reads, applied to a spec that parsed without errors: an error where Istio would reject the
 * object or a proxy would refuse what comes of it, a warning where the object is legal but will not do what it
 * says. Each issue names the field path. DestinationRule and ServiceEntry rules: validate-istio-entries.ts.
 *
 * Where Istio is more lenient than the user probably meant, a warning instead of an error: weights of a split
 * that do not add up to 100 (Istio and the proxies split in proportion; only a total of 0 is rejected), a
 * mirrorPercentage without a mirror.
 */
import { isIP } from 'node:net';
import { isDns1123Label } from './dns.ts';
import type {
  HTTPMatchRequest,
  HTTPRoute,
  RouteDestination,
  StringMatch,
  TLSRoute,
  TCPRoute,
  VirtualServiceSpec,
} from './objects.ts';
import type { ConfigIssue, ObjectRef } from './result.ts';
import { Checks, checkDestination, checkDuration } from './validate-checks.ts';

/** The rules for VirtualService `ref`; issues in field order: hosts, http, tcp, tls, exportTo. */
export function virtualServiceIssues(spec: VirtualServiceSpec, ref: ObjectRef): ConfigIssue[] {
  const c = new Checks(ref);
  checkVirtualServiceHosts(c, spec);
  spec.http.forEach((r, i) => checkHttpRoute(c, r, i));
  spec.tcp.forEach((r, i) => checkL4Route(c, r, () => `spec.tcp[${i}]`, 'TCP'));
  spec.tls?.forEach((r, i) => checkTlsRoute(c, r, i));
  if (spec.exportTo) checkExportTo(c, spec.exportTo, false);
  return c.issues;
}

function checkVirtualServiceHosts(c: Checks, spec: VirtualServiceSpec): void {
  if (spec.hosts.length === 0) c.error('spec.hosts', 'a VirtualService needs at least one host');
  const mesh = spec.gateways.length === 0 || spec.gateways.includes('mesh');
  spec.hosts.forEach((host, i) => {
    if (host === '*' && mesh) {
      c.error(
        `spec.hosts[${i}]`,
        'the wildcard host "*" is not allowed for a VirtualService bound to the mesh',
      );
    } else if (isIP(host) === 0) {
      const problem = c.wildcardProblem(host);
      if (problem) c.error(`spec.hosts[${i}]`, problem);
    }
  });
}

/** A StringMatch at `path()`: a regex must be non-empty RE2 (Envoy compiles it with google_re2). */
function checkStringMatch(c: Checks, m: StringMatch, path: () => string): void {
  if (m.regex === undefined) return;
  if (m.regex === '') c.error(`${path()}.regex`, 'a regex must not be empty');
  else {
    const problem = c.re2Problem(m.regex);
    if (problem) c.error(`${path()}.regex`, `not a valid RE2 regex (${problem})`);
  }
}

function checkHttpMatch(c: Checks, m: HTTPMatchRequest, path: () => string): void {
  if (m.method) checkStringMatch(c, m.method, () => `${path()}.method`);
  const headers = m.headers;
  for (const name in headers) {
    const p = () => `${path()}.headers${name === '' ? '[""]' : `.${name}`}`;
    if (name === '') c.error(p(), 'a header name must not be empty');
    checkStringMatch(c, headers[name] as StringMatch, p);
  }
}

function checkHttpRoute(c: Checks, r: HTTPRoute, i: number): void {
  const path = () => `spec.http[${i}]`;
  r.match.forEach((m, k) => checkHttpMatch(c, m, () => `${path()}.match[${k}]`));
  checkDestinations(c, r.route, path);
  if (r.mirror) checkDestination(c, r.mirror, () => `${path()}.mirror`, true);
  if (r.mirrorPercentage) {
    const value = r.mirrorPercentage.value ?? 0;
    if (value < 0 || value > 100) {
      c.error(`${path()}.mirrorPercentage.value`, `must be between 0 and 100, got ${value}`);
    }
    if (!r.mirror)
      c.warn(`${path()}.mirrorPercentage`, 'mirrorPercentage without mirror: nothing is mirrored');
  }
  if (r.timeout !== undefined) checkDuration(c, r.timeout, `${path()}.timeout`, false);
  const retries = r.retries;
  if (retries) {
    if (retries.attempts !== undefined && retries.attempts < 0) {
      c.error(`${path()}.retries.attempts`, `must not be negative, got ${retries.attempts}`);
    }
    if (retries.perTryTimeout !== undefined) {
      checkDuration(c, retries.perTryTimeout, `${path()}.retries.perTryTimeout`, true);
    }
  }
}

/** A TCP or TLS route: at least one destination, each valid, and a split with a positive total. */
function checkL4Route(c: Checks, r: TCPRoute | TLSRoute, path: () => string, what: string): void {
  if (r.route.length === 0) c.error(`${path()}.route`, `a ${what} route needs at least one destination`);
  checkDestinations(c, r.route, path);
}

/** A TLS route: every match names SNI hosts (Istio requires them), then as a TCP route. */
function checkTlsRoute(c: Checks, r: TLSRoute, i: number): void {
  const path = () => `spec.tls[${i}]`;
  if (r.match.length === 0) c.error(`${path()}.match`, 'a TLS route needs at least one match with sniHosts');
  r.match.forEach((m, k) => {
    if (m.sniHosts.length === 0)
      c.error(`${path()}.match[${k}].sniHosts`, 'at least one SNI host is required');
    m.sniHosts.forEach((h, n) => {
      const problem = c.wildcardProblem(h);
      if (problem) c.error(`${path()}.match[${k}].sniHosts[${n}]`, problem);
    });
  });
  checkL4Route(c, r, path, 'TLS');
}

/** The destinations of a route at `path()`: each valid; a split's weights add up to more than 0 (and should to 100). */
function checkDestinations(c: Checks, route: readonly RouteDestination[], path: () => string): void {
  let total = 0;
  route.forEach((d, j) => {
    checkDestination(c, d.destination, () => `${path()}.route[${j}].destination`, true);
    total += d.weight ?? 0;
  });
  if (route.length < 2 || total === 100) return;
  if (total === 0) {
    c.error(
      `${path()}.route`,
      'the weights of several destinations add up to 0: no destination gets traffic',
    );
  } else {
    c.warn(
      `${path()}.route`,
      `the weights of several destinations add up to ${total}, not 100: traffic is split in proportion to them`,
    );
  }
}

/**
 * Istio's exportTo rules (VirtualService, DestinationRule, ServiceEntry): entries `.`, `*`, `~` or a namespace
 * name, no duplicates (`.` is the own namespace), `*` alone, and `~` alone (only a ServiceEntry may use `~`).
 */
export function checkExportTo(c: Checks, exportTo: readonly string[], serviceEntry: boolean): void {
  const seen = new Set<string>();
  exportTo.forEach((e, i) => {
    const key = e === '.' ? c.ref.namespace : e;
    if (seen.has(key)) c.error(`spec.exportTo[${i}]`, `duplicate entry "${e}"`);
    seen.add(key);
    if (e === '~' && !serviceEntry) {
      c.error(`spec.exportTo[${i}]`, '"~" (export to no namespace) is only allowed in a ServiceEntry');
    } else if (e !== '.' && e !== '*' && e !== '~' && !isDns1123Label(e)) {
      c.error(`spec.exportTo[${i}]`, `"${e}" is neither ".", "*", "~" nor a namespace name`);
    }
  });
  if (exportTo.length > 1 && (seen.has('*') || seen.has('~'))) {
    c.error('spec.exportTo', '"*" and "~" cannot be combined with other entries');
  }
}
