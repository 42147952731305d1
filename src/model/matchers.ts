/**
 * envoy.config.route.v3.HeaderMatcher (proto3 JSON, with the `*Match` fields Aeraki writes: deprecated in Envoy,
 * still accepted, and what the MetaProtocol proxy reads) from the two kinds of string matches users write.
 * Lists derived from maps are sorted by key (deviation D5).
 */
import { sortedKeys } from '../util/json.ts';
import type { MetaRouteMatch, StringMatch } from './objects.ts';

export type HeaderMatcherJson = { readonly name: string } & (
  | { readonly exactMatch: string }
  | { readonly prefixMatch: string }
  | { readonly safeRegexMatch: { readonly googleRe2: Record<string, never>; readonly regex: string } }
  | { readonly presentMatch: true }
);

/**
 * MetaRouter attribute semantics (Aeraki internal/xds/utils.go MetaMatch2HttpHeaderMatch): a `null` match or
 * regex `*` means "present"; a match with none of exact/prefix/regex set adds no condition; `exact: ""` is an
 * exact match on the empty value.
 */
export function attributeMatchers(match: MetaRouteMatch | undefined): HeaderMatcherJson[] {
  const attributes = match?.attributes ?? {};
  const out: HeaderMatcherJson[] = [];
  for (const name of sortedKeys(attributes)) {
    const m = attributes[name] ?? null;
    if (m === null || m.regex === '*') out.push({ name, presentMatch: true });
    else if (m.exact !== undefined) out.push({ name, exactMatch: m.exact });
    else if (m.prefix !== undefined) out.push({ name, prefixMatch: m.prefix });
    else if (m.regex !== undefined) out.push({ name, safeRegexMatch: { googleRe2: {}, regex: m.regex } });
  }
  return out;
}

/**
 * Istio VirtualService header semantics: a header with none of exact/prefix/regex set, or `prefix: ""`, means
 * "present".
 */
export function istioHeaderMatcher(name: string, m: StringMatch): HeaderMatcherJson {
  if (m.exact !== undefined) return { name, exactMatch: m.exact };
  if (m.prefix !== undefined && m.prefix !== '') return { name, prefixMatch: m.prefix };
  if (m.regex !== undefined) return { name, safeRegexMatch: { googleRe2: {}, regex: m.regex } };
  return { name, presentMatch: true };
}

/** All headers of a VirtualService match, sorted by name. */
export function istioHeaderMatchers(
  headers: Readonly<Record<string, StringMatch>> | undefined,
): HeaderMatcherJson[] {
  const all = headers ?? {};
  return sortedKeys(all).map((name) => istioHeaderMatcher(name, all[name] ?? {}));
}
