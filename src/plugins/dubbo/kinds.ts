/**
 * The kind the native Dubbo plugin reads: dubbo.aeraki.io/v1alpha1 DubboAuthorizationPolicy, read strictly
 * (parse.ts), with the rules of validate.ts.
 */
import { kindSpec, type KindSpec } from '../../model/kinds.ts';
import { describeDubboAuthorizationPolicy } from './describe.ts';
import { readDubboAuthorizationPolicySpec } from './parse.ts';
import { dubboAuthorizationPolicyIssues } from './validate.ts';

export const DUBBO_AUTHORIZATION_POLICY_KIND = kindSpec({
  kind: 'DubboAuthorizationPolicy',
  group: 'dubbo.aeraki.io',
  version: 'v1alpha1',
  plural: 'dubboauthorizationpolicies',
  namespaced: true,
  readSpec: (f, spec) => readDubboAuthorizationPolicySpec(f, spec),
  ruleIssues: (o, ref) => dubboAuthorizationPolicyIssues(o.spec, ref),
  describe: describeDubboAuthorizationPolicy,
});

export const DUBBO_KINDS: readonly KindSpec[] = [DUBBO_AUTHORIZATION_POLICY_KIND];
