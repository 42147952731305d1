/**
 * DubboAuthorizationPolicies → the `envoy.filters.dubbo.rbac` filters of an inbound dubbo_proxy (Aeraki
 * internal/plugin/dubbo/authz/builder/builder.go and model/model.go; deviations D14, D15):
 * - one filter per action with at least one policy, DENY before ALLOW; its config is an Any of
 *   envoy.extensions.filters.network.rbac.v3.RBAC with `statPrefix: dubbo.` and `rules` whose `action` is DENY or
 *   left out (ALLOW, the default); without any rule `rules` has no `policies` (ALLOW: deny all, DENY: deny none);
 * - one Envoy policy per rule, keyed `ns[<policy namespace>]-policy[<policy name>]-rule[<index in the policy>]`;
 * - a rule's principals are one AND-set per `from` entry, its permissions one AND-set per `to` entry; no entries
 *   (or an entry with nothing in it) give one set holding `any: true`;
 * - inside a set, each non-empty list is one OR of its values and each `not*` list the same under a NOT, in the
 *   order principals, notPrincipals, namespaces, notNamespaces (sources) and methods, notMethods, interfaces,
 *   notInterfaces (operations).
 * The policies are already validated (parse.ts), so the translation cannot fail.
 */
import type { DubboAuthorizationPolicy, DubboOperation, DubboRule, DubboSource } from './types.ts';
import { DUBBO_RBAC_FILTER, type DubboFilter } from './filters.ts';
import {
  metadataRule,
  namespaceId,
  principalId,
  type DubboMetadataKey,
  type PermissionJson,
  type PrincipalJson,
} from './rbac-match.ts';

export const RBAC_TYPE = 'type.googleapis.com/envoy.extensions.filters.network.rbac.v3.RBAC';
export const RBAC_STAT_PREFIX = 'dubbo.';

/** envoy.config.rbac.v3.Policy */
export interface RbacPolicyJson {
  readonly permissions: readonly PermissionJson[];
  readonly principals: readonly PrincipalJson[];
}

const ANY = { any: true } as const;

/** The ids of the non-empty lists: OR of the values, under a NOT for the negated lists. */
function idSet(
  values: readonly string[],
  id: (v: string) => PrincipalJson,
  negate: boolean,
): PrincipalJson[] {
  if (values.length === 0) return [];
  const or: PrincipalJson = { orIds: { ids: values.map(id) } };
  return [negate ? { notId: or } : or];
}

function ruleSet(values: readonly string[], key: DubboMetadataKey, negate: boolean): PermissionJson[] {
  if (values.length === 0) return [];
  const or: PermissionJson = { orRules: { rules: values.map((v) => metadataRule(key, v)) } };
  return [negate ? { notRule: or } : or];
}

function sourcePrincipal(s: DubboSource): PrincipalJson {
  const ids = [
    ...idSet(s.principals, principalId, false),
    ...idSet(s.notPrincipals, principalId, true),
    ...idSet(s.namespaces, namespaceId, false),
    ...idSet(s.notNamespaces, namespaceId, true),
  ];
  return { andIds: { ids: ids.length > 0 ? ids : [ANY] } };
}

function operationPermission(o: DubboOperation): PermissionJson {
  const rules = [
    ...ruleSet(o.methods, 'method', false),
    ...ruleSet(o.notMethods, 'method', true),
    ...ruleSet(o.interfaces, 'service', false),
    ...ruleSet(o.notInterfaces, 'service', true),
  ];
  return { andRules: { rules: rules.length > 0 ? rules : [ANY] } };
}

/** The Envoy policy of one rule. */
export function rulePolicy(rule: DubboRule): RbacPolicyJson {
  const principals = rule.from.map((f) => sourcePrincipal(f.source));
  const permissions = rule.to.map((t) => operationPermission(t.operation));
  return {
    permissions: permissions.length > 0 ? permissions : [{ andRules: { rules: [ANY] } }],
    principals: principals.length > 0 ? principals : [{ andIds: { ids: [ANY] } }],
  };
}

/** D14: every rule is named after its own policy and its index in that policy. */
export function ruleName(policy: DubboAuthorizationPolicy, ruleIndex: number): string {
  return `ns[${policy.metadata.namespace}]-policy[${policy.metadata.name}]-rule[${ruleIndex}]`;
}

function rbacFilter(action: 'ALLOW' | 'DENY', policies: readonly DubboAuthorizationPolicy[]): DubboFilter {
  const byName: Record<string, RbacPolicyJson> = {};
  for (const p of policies) p.spec.rules.forEach((rule, i) => (byName[ruleName(p, i)] = rulePolicy(rule)));
  const rules = {
    ...(action === 'DENY' ? { action } : {}),
    ...(Object.keys(byName).length > 0 ? { policies: byName } : {}),
  };
  return { name: DUBBO_RBAC_FILTER, config: { '@type': RBAC_TYPE, rules, statPrefix: RBAC_STAT_PREFIX } };
}

/** The RBAC filters of `policies` (in the order given: their rules keep it), DENY first; [] without policies. */
export function authorizationFilters(policies: readonly DubboAuthorizationPolicy[]): DubboFilter[] {
  const out: DubboFilter[] = [];
  for (const action of ['DENY', 'ALLOW'] as const) {
    const ofAction = policies.filter((p) => p.spec.action === action);
    if (ofAction.length > 0) out.push(rbacFilter(action, ofAction));
  }
  return out;
}
