/**
 * The matchers of one DubboAuthorizationPolicy value, as Envoy RBAC proto3 JSON (Aeraki
 * internal/plugin/dubbo/authz/model/generator.go and matcher/string.go, after Istio's authorization policy):
 * - a method or interface is a metadata matcher on the filter `envoy.filters.dubbo.rbac` (keys `method`, `service`);
 * - a principal is the peer's authenticated principal name, with `spiffe://` put in front;
 * - a namespace is a principal name regex matching `/ns/<namespace>/` inside it, `*` in the namespace standing for
 *   any text.
 * String values: `*` is the presence regex `.+`, `*abc` a suffix (with a prefix to put in front, the regex
 * `<prefix>.*abc`), `abc*` a prefix, anything else exact. The literal parts of a regex are escaped (Aeraki writes
 * them as they are, so `.` in a trust domain matches any character and `**` is a regex Envoy rejects).
 * https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/rbac/v3/rbac.proto
 */
import { DUBBO_RBAC_FILTER } from './filters.ts';

export type StringMatcherJson =
  | { readonly exact: string }
  | { readonly prefix: string }
  | { readonly suffix: string }
  | { readonly safeRegex: { readonly googleRe2: Record<string, never>; readonly regex: string } };

/** envoy.config.rbac.v3.Principal, the forms used here. */
export type PrincipalJson =
  | { readonly any: true }
  | { readonly andIds: { readonly ids: readonly PrincipalJson[] } }
  | { readonly orIds: { readonly ids: readonly PrincipalJson[] } }
  | { readonly notId: PrincipalJson }
  | { readonly authenticated: { readonly principalName: StringMatcherJson } };

/** envoy.config.rbac.v3.Permission, the forms used here. */
export type PermissionJson =
  | { readonly any: true }
  | { readonly andRules: { readonly rules: readonly PermissionJson[] } }
  | { readonly orRules: { readonly rules: readonly PermissionJson[] } }
  | { readonly notRule: PermissionJson }
  | {
      readonly metadata: {
        readonly filter: string;
        readonly path: readonly { readonly key: string }[];
        readonly value: { readonly stringMatch: StringMatcherJson };
      };
    };

const SPIFFE_PREFIX = 'spiffe://';

/** RE2 syntax characters, escaped as Go's regexp.QuoteMeta does. */
function quoteMeta(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

function regex(value: string): StringMatcherJson {
  return { safeRegex: { googleRe2: {}, regex: value } };
}

/** The matcher of one value with wildcards, `prefix` (may be '') put in front of it. */
export function wildcardMatcher(value: string, prefix: string): StringMatcherJson {
  if (value === '*') return regex('.+');
  if (value.startsWith('*')) {
    const rest = value.slice(1);
    return prefix === '' ? { suffix: rest } : regex(`${quoteMeta(prefix)}.*${quoteMeta(rest)}`);
  }
  if (value.endsWith('*')) return { prefix: prefix + value.slice(0, -1) };
  return { exact: prefix + value };
}

export function principalId(principal: string): PrincipalJson {
  return { authenticated: { principalName: wildcardMatcher(principal, SPIFFE_PREFIX) } };
}

export function namespaceId(namespace: string): PrincipalJson {
  const pattern = namespace.split('*').map(quoteMeta).join('.*');
  return { authenticated: { principalName: regex(`.*/ns/${pattern}/.*`) } };
}

/** Metadata key of the Dubbo RBAC filter: `method` for methods, `service` for interfaces. */
export type DubboMetadataKey = 'method' | 'service';

export function metadataRule(key: DubboMetadataKey, value: string): PermissionJson {
  return {
    metadata: {
      filter: DUBBO_RBAC_FILTER,
      path: [{ key }],
      value: { stringMatch: wildcardMatcher(value, '') },
    },
  };
}
