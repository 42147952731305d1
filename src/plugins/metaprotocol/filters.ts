/**
 * The MetaProtocol filter chain (Aeraki internal/plugin/metaprotocol/filters.go): rate-limit filters on inbound,
 * then metadata_exchange, istio_stats and router. Configs are proto3 JSON (lowerCamelCase, defaults omitted,
 * Any = {'@type', ...fields}).
 */
import type {
  GlobalRateLimit,
  LocalRateLimit,
  MetaRouteMatch,
  MetaRouter,
  TokenBucket,
} from '../../model/objects.ts';
import { attributeMatchers } from '../../model/matchers.ts';
import { fail, issue, ok, refOf, type ConfigIssue, type ObjectRef, type Result } from '../../model/result.ts';

export const METADATA_EXCHANGE_FILTER = 'aeraki.meta_protocol.filters.metadata_exchange';
export const ISTIO_STATS_FILTER = 'aeraki.meta_protocol.filters.istio_stats';
export const ROUTER_FILTER = 'aeraki.meta_protocol.filters.router';
export const LOCAL_RATE_LIMIT_FILTER = 'aeraki.meta_protocol.filters.local_ratelimit';
export const GLOBAL_RATE_LIMIT_FILTER = 'aeraki.meta_protocol.filters.ratelimit';

const ISTIO_STATS_TYPE =
  'type.googleapis.com/aeraki.meta_protocol_proxy.filters.istio_stats.v1alpha.IstioStats';
const LOCAL_RATE_LIMIT_TYPE =
  'type.googleapis.com/aeraki.meta_protocol_proxy.filters.local_ratelimit.v1alpha.LocalRateLimit';
const GLOBAL_RATE_LIMIT_TYPE =
  'type.googleapis.com/aeraki.meta_protocol_proxy.filters.ratelimit.v1alpha.RateLimit';

/** One entry of `metaProtocolFilters` (aeraki.meta_protocol_proxy.v1alpha.MetaProtocolFilter). */
export interface MetaProtocolFilter {
  readonly name: string;
  readonly config?: Readonly<Record<string, unknown>>;
}

/** aeraki.meta_protocol_proxy.config.route.v1alpha.RouteMatch: always set, `{}` when nothing matches on. */
function routeMatch(match: MetaRouteMatch | undefined): Record<string, unknown> {
  const metadata = attributeMatchers(match);
  return metadata.length > 0 ? { metadata } : {};
}

// The config-less filters are the same in every chain: shared constants.
const METADATA_EXCHANGE: MetaProtocolFilter = Object.freeze({ name: METADATA_EXCHANGE_FILTER });
const ROUTER: MetaProtocolFilter = Object.freeze({ name: ROUTER_FILTER });

/**
 * metadata_exchange, istio_stats (destinationService = host), router. The outbound and inbound chains of a
 * service may share the returned array: generation output is never mutated.
 */
export function commonFilters(host: string): readonly MetaProtocolFilter[] {
  return [
    METADATA_EXCHANGE,
    { name: ISTIO_STATS_FILTER, config: { '@type': ISTIO_STATS_TYPE, destinationService: host } },
    ROUTER,
  ];
}

/** envoy.type.v3.TokenBucket: zero maxTokens / tokensPerFill omitted, fillInterval always written. */
function tokenBucket(tb: TokenBucket): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (tb.maxTokens) out['maxTokens'] = tb.maxTokens;
  if (tb.tokensPerFill) out['tokensPerFill'] = tb.tokensPerFill;
  out['fillInterval'] = tb.fillInterval || '0s';
  return out;
}

function localRateLimitFilter(
  ref: ObjectRef,
  statPrefix: string,
  lrl: LocalRateLimit,
): Result<MetaProtocolFilter> {
  const conditions = lrl.conditions ?? [];
  if (lrl.tokenBucket === undefined && conditions.length === 0) {
    return fail([issue(ref, 'spec.localRateLimit', 'either tokenBucket or conditions must be given')]);
  }
  // Conditions without a token bucket are dropped (Aeraki crd2Conditions).
  const built = conditions.flatMap((c) =>
    c.tokenBucket ? [{ match: routeMatch(c.match), tokenBucket: tokenBucket(c.tokenBucket) }] : [],
  );
  const config: Record<string, unknown> = { '@type': LOCAL_RATE_LIMIT_TYPE };
  if (statPrefix) config['statPrefix'] = statPrefix;
  if (lrl.tokenBucket) config['tokenBucket'] = tokenBucket(lrl.tokenBucket);
  if (built.length > 0) config['conditions'] = built;
  return ok({ name: LOCAL_RATE_LIMIT_FILTER, config });
}

function globalRateLimitFilter(ref: ObjectRef, grl: GlobalRateLimit): Result<MetaProtocolFilter> {
  const descriptors = grl.descriptors ?? [];
  if (descriptors.length === 0) {
    return fail([
      issue(ref, 'spec.globalRateLimit.descriptors', 'a global rate limit needs at least one descriptor'),
    ]);
  }
  const config: Record<string, unknown> = {
    '@type': GLOBAL_RATE_LIMIT_TYPE,
    match: routeMatch(grl.match),
    ...(grl.domain ? { domain: grl.domain } : {}),
    // D8: no requestTimeout, no timeout key.
    ...(grl.requestTimeout !== undefined ? { timeout: grl.requestTimeout } : {}),
    ...(grl.denyOnFail ? { failureModeDeny: true } : {}),
    rateLimitService: {
      grpcService: { envoyGrpc: grl.rateLimitService ? { clusterName: grl.rateLimitService } : {} },
    },
    descriptors: descriptors.map((d) => ({
      ...(d.property ? { property: d.property } : {}),
      ...(d.descriptorKey ? { descriptorKey: d.descriptorKey } : {}),
    })),
  };
  return ok({ name: GLOBAL_RATE_LIMIT_FILTER, config });
}

/**
 * The inbound filter chain: local then global rate limit (when the MetaRouter has them), then `common` (the
 * commonFilters of the service's host). Rate-limit config errors are issues on the MetaRouter.
 */
export function inboundFilters(
  metaRouter: MetaRouter | undefined,
  common: readonly MetaProtocolFilter[],
): Result<readonly MetaProtocolFilter[]> {
  if (metaRouter === undefined) return ok(common);
  const { localRateLimit, globalRateLimit } = metaRouter.spec;
  if (localRateLimit === undefined && globalRateLimit === undefined) return ok(common);
  const filters: MetaProtocolFilter[] = [];
  const issues: ConfigIssue[] = [];
  const ref = refOf(metaRouter);
  if (localRateLimit) {
    const local = localRateLimitFilter(ref, metaRouter.spec.hosts[0] ?? '', localRateLimit);
    if (local.ok) filters.push(local.value);
    for (const i of local.issues) issues.push(i);
  }
  if (globalRateLimit) {
    const global = globalRateLimitFilter(ref, globalRateLimit);
    if (global.ok) filters.push(global.value);
    for (const i of global.issues) issues.push(i);
  }
  if (issues.length > 0) return fail(issues);
  if (filters.length === 0) return ok(common);
  for (const f of common) filters.push(f);
  return ok(filters);
}
