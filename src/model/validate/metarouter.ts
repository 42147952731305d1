/**
 * The rules of Aeraki's MetaRouter and ApplicationProtocol webhook (spec aeraki-periphery.md §7.3), applied to a
 * spec that parsed without errors. Each problem is a ConfigIssue naming the field path; an error rejects the
 * object like a parse error, a warning is reported and the object is used as it is.
 *
 * Admission is strict, the controller tolerant (DESIGN habit 12): every §7.3 rule is an error for `aeraki
 * validate` and the webhook, but where Aeraki's controller renders the object anyway and the proxy accepts the
 * result (`refuse`: weights that do not add up to 100, a null attribute match, an empty mutation value, ...), the
 * controller renders it as Aeraki's does, with a warning. A rule stays an error everywhere (`error`) only where the
 * output would be NACKed by the MetaProtocol proxy (its protos' `validate.rules`: an empty header name, regex,
 * mutation key, rate-limit domain or descriptor; maxTokens 0), would misroute (a destination host no cluster has,
 * a split whose weights add up to 0), or where the meaning is ambiguous (an exportTo entry that names no
 * namespace).
 *
 * The acceptance fixtures (fixtures/render/README.md) render what Aeraki's webhook refuses and its controller
 * renders: `regex: "*"` is a presence match (case 12), `exportTo` may list `*` beside namespaces (case 24); both are
 * admission only. `globalRateLimit.requestTimeout` is optional (D8), as in §7.3.
 * Stricter than Aeraki, where Aeraki would write what cannot work: `~` in exportTo (no namespace `~` exists), and
 * every route after one that matches every request is reported unreachable (Aeraki flags only match-less ones).
 * Conflicts between objects need the whole config: see conflicts/metarouter.ts.
 */
import { isDns1123Label } from '../dns.ts';
import { re2Problem } from './re2.ts';
import type {
  ApplicationProtocolSpec,
  GlobalRateLimit,
  KeyValue,
  LocalRateLimit,
  MetaRoute,
  MetaRouteMatch,
  MetaRouterSpec,
  TokenBucket,
} from '../objects.ts';
import type { ConfigIssue, ObjectRef } from '../result.ts';
import {
  checksOf,
  error,
  hostProblem,
  refuse,
  refuseAs,
  warn,
  type Checks,
  checkDestination,
} from './checks.ts';

/** The regex Aeraki's controller turns into a presence match (internal/xds/utils.go), rendered as in fixture 12. */
const PRESENT_REGEX = '*';

/**
 * §7.3 rules 1-12 for the spec of MetaRouter `ref` (its namespace is what `.` in exportTo means). Issues in field
 * order: hosts, routes, exportTo, rate limits.
 */
export function metaRouterIssues(spec: MetaRouterSpec, ref: ObjectRef): ConfigIssue[] {
  const c = checksOf(ref);
  checkHosts(c, spec.hosts);
  if (spec.routes.length === 0 && !spec.globalRateLimit && !spec.localRateLimit) {
    refuse(
      c,
      'spec',
      'a MetaRouter needs at least one of routes, globalRateLimit or localRateLimit',
      'this one changes nothing (the default route is served)',
    );
  }
  const routes = spec.routes;
  for (let i = 0; i < routes.length; i++) checkRoute(c, routes[i] as MetaRoute, i);
  checkUnreachable(c, routes);
  checkExportTo(c, spec.exportTo, ref.namespace);
  if (spec.globalRateLimit) checkGlobalRateLimit(c, spec.globalRateLimit, 'spec.globalRateLimit');
  if (spec.localRateLimit) checkLocalRateLimit(c, spec.localRateLimit, 'spec.localRateLimit');
  return c.issues;
}

/**
 * §7.3 (ApplicationProtocol): protocol and codec non-empty; plus a protocol no port name can carry is a warning. An
 * empty protocol is selected by no port (nothing is rendered for it, as in Aeraki); an empty codec would be
 * written into the proxy config of every port that selects it, so it is an error.
 */
export function applicationProtocolIssues(spec: ApplicationProtocolSpec, ref: ObjectRef): ConfigIssue[] {
  const c = checksOf(ref);
  if (spec.protocol === '')
    refuse(c, 'spec.protocol', 'must not be empty: no port selects this ApplicationProtocol');
  else if (spec.protocol.includes('-')) {
    warn(
      c,
      'spec.protocol',
      `"${spec.protocol}" contains "-": a port name tcp-metaprotocol-<protocol> ends the protocol at the first "-", ` +
        'so no port can select this ApplicationProtocol',
    );
  }
  if (spec.codec === '') error(c, 'spec.codec', 'must not be empty');
  return c.issues;
}

/**
 * Rule 1: exactly one host (admission only: like Aeraki's controller, the MetaRouter applies to the ServiceEntry of
 * each host it lists, and to none without one), an FQDN (else its meaning is ambiguous: Istio completes short and
 * mixed-case names, Aeraki compares them as written).
 */
function checkHosts(c: Checks, hosts: readonly string[]): void {
  if (hosts.length !== 1) {
    const consequence =
      hosts.length === 0 ? 'it applies to no service' : 'it applies to the ServiceEntry of each of them';
    refuse(c, 'spec.hosts', `a MetaRouter must have exactly one host, got ${hosts.length}`, consequence);
  }
  const host = hosts[0];
  if (host === undefined) return;
  const problem = hostProblem(host);
  if (problem) error(c, 'spec.hosts[0]', problem);
}

/** The path of route `i`. Paths are built only for an issue: most routes have none. */
function routePath(i: number): string {
  return `spec.routes[${i}]`;
}

/**
 * Rules 3-7 for route `i`. Admission only: mirrorPercentage without mirror (ignored) or outside (0, 100] (0 means
 * 100 %, above 100 every request is mirrored, as Aeraki's controller writes it), destination port 0 (the service's
 * port), a weight above 100 or weights that do not add up to 100 (the proxy splits in proportion to them). A split
 * whose weights add up to 0 is an error: the proxy picks a destination by dividing by the total.
 */
function checkRoute(c: Checks, r: MetaRoute, i: number): void {
  if (r.match) checkMatch(c, r.match, i);
  checkMutations(c, r.requestMutation, i, 'requestMutation');
  checkMutations(c, r.responseMutation, i, 'responseMutation');
  if (r.mirrorPercentage) {
    const p = `${routePath(i)}.mirrorPercentage`;
    if (!r.mirror)
      refuseAs(
        c,
        p,
        'mirrorPercentage needs mirror: there is nothing to mirror to, so it is ignored',
        'mirrorPercentage needs mirror: there is nothing to mirror to',
      );
    const value = r.mirrorPercentage.value ?? 0;
    if (!(value > 0 && value <= 100)) {
      const meaning = value > 100 ? 'every request is mirrored' : '0 means 100 %';
      refuse(c, `${p}.value`, `must be above 0 and at most 100, got ${value}`, meaning);
    }
  }
  if (r.mirror) checkDestination(c, r.mirror, false, destinationPath, i, -1);
  let total = 0;
  for (let j = 0; j < r.route.length; j++) {
    const d = r.route[j] as (typeof r.route)[number];
    checkDestination(c, d.destination, false, destinationPath, i, j);
    const weight = d.weight ?? 0;
    if (weight > 100) refuse(c, `${routePath(i)}.route[${j}].weight`, `must be at most 100, got ${d.weight}`);
    total += weight;
  }
  if (r.route.length > 1 && total === 0) {
    error(
      c,
      `${routePath(i)}.route`,
      'the weights of several destinations add up to 0: no destination gets traffic',
    );
  } else if (r.route.length > 1 && total !== 100) {
    refuse(
      c,
      `${routePath(i)}.route`,
      `the weights of several destinations must add up to 100, got ${total}`,
      'traffic is split in proportion to them',
    );
  }
}

/** The path of a match: of route `where`, or `where` itself (a rate limit's). */
function matchPath(where: number | string): string {
  return typeof where === 'number' ? `${routePath(where)}.match` : where;
}

function attributePath(where: number | string, name: string): string {
  return `${matchPath(where)}.attributes${name === '' ? '[""]' : `.${name}`}`;
}

/**
 * Rule 3: attribute names non-empty, values non-null, regexes non-empty RE2; an empty match is ignored (warning).
 * A null value is admission only: Aeraki's controller (and this one) make it a presence match.
 * `where`: the route's index, or the path of the match.
 */
function checkMatch(c: Checks, match: MetaRouteMatch, where: number | string): void {
  const attributes = match.attributes;
  for (const name in attributes) {
    const m = attributes[name];
    if (m === undefined) continue;
    if (name === '') error(c, attributePath(where, name), 'an attribute name must not be empty');
    if (m === null) {
      refuseAs(
        c,
        attributePath(where, name),
        'an attribute match must not be null: it matches when the attribute is present (write regex: ".*")',
        'an attribute match must not be null (write regex: ".*" to match when the attribute is present)',
      );
    } else if (m.regex !== undefined) {
      if (m.regex === '') error(c, `${attributePath(where, name)}.regex`, 'a regex must not be empty');
      else if (m.regex === PRESENT_REGEX) {
        refuseAs(
          c,
          `${attributePath(where, name)}.regex`,
          '"*" is not a valid RE2 regex: it matches when the attribute is present (write ".*")',
          '"*" is not a valid RE2 regex (write ".*" to match when the attribute is present)',
        );
      } else {
        const problem = re2Problem(m.regex);
        if (problem) error(c, `${attributePath(where, name)}.regex`, `not a valid RE2 regex (${problem})`);
      }
    } else if (m.exact === undefined && m.prefix === undefined) {
      warn(
        c,
        attributePath(where, name),
        'none of exact, prefix or regex is set: this attribute adds no condition and is ignored',
      );
    }
  }
}

/** Rule 4: mutation keys and values non-empty (`field` of route `i`); an empty value is admission only. */
function checkMutations(c: Checks, kvs: readonly KeyValue[], i: number, field: string): void {
  for (let k = 0; k < kvs.length; k++) {
    const kv = kvs[k] as KeyValue;
    if (kv.key === '') error(c, `${routePath(i)}.${field}[${k}].key`, 'a mutation key must not be empty');
    if (kv.value === '') {
      refuse(
        c,
        `${routePath(i)}.${field}[${k}].value`,
        'a mutation value must not be empty',
        'it is set to ""',
      );
    }
  }
}

/** The path of destination `j` of route `i`, or of its mirror when `j` is -1. */
function destinationPath(i: number, j: number): string {
  return j < 0 ? `${routePath(i)}.mirror` : `${routePath(i)}.route[${j}].destination`;
}

/**
 * True when `match` adds no condition, so the route takes every request: no attribute gives a matcher
 * (attributeMatchers in matchers.ts), as only one with none of exact, prefix or regex gives none.
 */
function matchesEverything(match: MetaRouteMatch | undefined): boolean {
  const attributes = match?.attributes;
  for (const name in attributes) {
    const m = attributes[name] ?? null;
    if (m === null || m.exact !== undefined || m.prefix !== undefined || m.regex !== undefined) return false;
  }
  return true;
}

/** Rule 9 (warning), widened: every route after one that matches every request is never used. */
function checkUnreachable(c: Checks, routes: readonly MetaRoute[]): void {
  let catchAll = 0;
  while (catchAll < routes.length && !matchesEverything((routes[catchAll] as MetaRoute).match)) catchAll++;
  if (catchAll >= routes.length - 1) return; // none, or the last route: nothing after it
  const before = routeLabel(routes[catchAll], catchAll);
  for (let i = catchAll + 1; i < routes.length; i++) {
    warn(
      c,
      `spec.routes[${i}]`,
      `route ${routeLabel(routes[i], i)} is never used: route ${before} before it matches every request`,
    );
  }
}

function routeLabel(r: MetaRoute | undefined, i: number): string {
  return r?.name ? `#${i} "${r.name}"` : `#${i}`;
}

/**
 * Rule 8: no duplicates (`.` is the own namespace) and `*` alone are admission only (each namespace gets one copy);
 * an entry that names no namespace (`~` included: Aeraki would write filters into a namespace `~`) is an error.
 */
function checkExportTo(c: Checks, exportTo: readonly string[], namespace: string): void {
  if (exportTo.length === 0) return;
  const seen = new Map<string, string>(); // namespace -> the entry that named it first
  exportTo.forEach((e, i) => {
    const p = `spec.exportTo[${i}]`;
    const key = e === '.' ? namespace : e;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, e);
    else if (first === e) refuse(c, p, `duplicate entry "${e}"`);
    else refuse(c, p, `duplicate entry: "." is this namespace, ${namespace}`);
    if (e === '~') {
      error(
        c,
        p,
        '"~" (export to no namespace) is not supported: there would be no namespace to put filters in',
      );
    } else if (e !== '.' && e !== '*' && !isDns1123Label(e)) {
      error(c, p, `"${e}" is neither ".", "*" nor a namespace name`);
    }
  });
  if (exportTo.length > 1 && seen.has('*')) {
    refuse(
      c,
      'spec.exportTo',
      '"*" (the root namespace) cannot be combined with other entries',
      'each entry gets a copy',
    );
  }
}

/** Rule 10; requestTimeout stays optional (D8). */
function checkGlobalRateLimit(c: Checks, g: GlobalRateLimit, path: string): void {
  if (g.domain === '') error(c, `${path}.domain`, 'must not be empty');
  if (g.rateLimitService === '') error(c, `${path}.rateLimitService`, 'must not be empty');
  if (g.match) checkMatch(c, g.match, `${path}.match`);
  if (g.descriptors.length === 0) {
    error(c, `${path}.descriptors`, 'at least one descriptor is required: without one nothing is counted');
  }
  for (let i = 0; i < g.descriptors.length; i++) {
    const d = g.descriptors[i] as (typeof g.descriptors)[number];
    if (d.property === '') error(c, `${path}.descriptors[${i}].property`, 'must not be empty');
    if (d.descriptorKey === '') error(c, `${path}.descriptors[${i}].descriptorKey`, 'must not be empty');
  }
}

/**
 * Rule 11 (the fields of each token bucket are required by the parser, D8). Admission only: tokensPerFill 0 (left
 * out, so the proxy fills 1 token, as Aeraki's controller writes it), a condition without match (it matches every
 * request) or without tokenBucket (dropped, as Aeraki's controller drops it). maxTokens 0 is an error: the proxy
 * refuses it.
 */
function checkLocalRateLimit(c: Checks, l: LocalRateLimit, path: string): void {
  if (!l.tokenBucket && l.conditions.length === 0) {
    error(c, path, 'a local rate limit needs a tokenBucket or conditions');
  }
  if (l.tokenBucket) checkTokenBucket(c, l.tokenBucket, path, -1);
  for (let i = 0; i < l.conditions.length; i++) {
    const cond = l.conditions[i] as (typeof l.conditions)[number];
    const p = `${path}.conditions[${i}]`;
    if (cond.match) checkMatch(c, cond.match, `${p}.match`);
    else refuse(c, `${p}.match`, 'required field is missing: this condition matches every request');
    if (cond.tokenBucket) checkTokenBucket(c, cond.tokenBucket, path, i);
    else refuse(c, `${p}.tokenBucket`, 'required field is missing', 'this condition is dropped');
  }
}

/** The path of the token bucket of the local rate limit at `path`, or of its condition `i` (-1: the limit's own). */
function tokenBucketPath(path: string, i: number): string {
  return i < 0 ? `${path}.tokenBucket` : `${path}.conditions[${i}].tokenBucket`;
}

/** The token bucket of the local rate limit at `path`, or of its condition `i` (-1: the limit's own). */
function checkTokenBucket(c: Checks, b: TokenBucket, path: string, i: number): void {
  if (b.maxTokens < 1) {
    error(c, `${tokenBucketPath(path, i)}.maxTokens`, `must be at least 1, got ${b.maxTokens}`);
  }
  if (b.tokensPerFill < 1) {
    refuse(
      c,
      `${tokenBucketPath(path, i)}.tokensPerFill`,
      `must be at least 1, got ${b.tokensPerFill}`,
      'left out, so 1 token is added per fill',
    );
  }
}
