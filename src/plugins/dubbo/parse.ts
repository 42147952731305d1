/**
 * Spec of dubbo.aeraki.io/v1alpha1 DubboAuthorizationPolicy (api:dubbo/v1alpha1/dubbo_authorization_policy.proto),
 * read strictly: a field the CRD does not define (at any depth), a value of the wrong JSON type and an action other
 * than ALLOW or DENY are errors of the object, which is then not applied. There is no `selector` (the proto comment
 * mentions one, the message has none): a policy applies to every native Dubbo service of its namespace.
 */
import type { DubboAuthorizationPolicySpec, DubboOperation, DubboRule, DubboSource } from './types.ts';
import { describe, type Fields, type Raw } from '../../model/parse/fields.ts';
import { rejectUnknownFields } from '../../model/parse/strict.ts';
import { hasErrors } from '../../model/result.ts';
import { dubboAuthorizationPolicyIssues } from './validate.ts';

const SPEC_FIELDS: ReadonlySet<string> = new Set(['action', 'rules']);
const RULE_FIELDS: ReadonlySet<string> = new Set(['from', 'to']);
const FROM_FIELDS: ReadonlySet<string> = new Set(['source']);
const TO_FIELDS: ReadonlySet<string> = new Set(['operation']);
const SOURCE_FIELDS = ['principals', 'notPrincipals', 'namespaces', 'notNamespaces'] as const;
const OPERATION_FIELDS = ['interfaces', 'notInterfaces', 'methods', 'notMethods'] as const;
const ACTIONS: readonly DubboAuthorizationPolicySpec['action'][] = ['ALLOW', 'DENY'];

function specHint(key: string): string | undefined {
  return key === 'selector'
    ? 'a DubboAuthorizationPolicy has no selector; it applies to every native Dubbo service of its namespace'
    : undefined;
}

/** The four string lists of `o` named by `keys` (absent → []), after rejecting any other field. */
function readLists<K extends string>(
  f: Fields,
  o: Raw,
  keys: readonly K[],
  path: string,
): Record<K, string[]> {
  rejectUnknownFields(f, o, new Set<string>(keys), path);
  const out = {} as Record<K, string[]>;
  for (const k of keys) out[k] = f.stringList(o, k, `${path}.${k}`);
  return out;
}

function readSource(f: Fields, entry: Raw, path: string): { source: DubboSource } {
  rejectUnknownFields(f, entry, FROM_FIELDS, path);
  const o = f.object(entry, 'source', `${path}.source`) ?? {};
  return { source: readLists(f, o, SOURCE_FIELDS, `${path}.source`) };
}

function readOperation(f: Fields, entry: Raw, path: string): { operation: DubboOperation } {
  rejectUnknownFields(f, entry, TO_FIELDS, path);
  const o = f.object(entry, 'operation', `${path}.operation`) ?? {};
  return { operation: readLists(f, o, OPERATION_FIELDS, `${path}.operation`) };
}

function readRule(f: Fields, o: Raw, path: string): DubboRule {
  rejectUnknownFields(f, o, RULE_FIELDS, path);
  return {
    from: f.objectList(o, 'from', `${path}.from`, (e, p) => readSource(f, e, p)),
    to: f.objectList(o, 'to', `${path}.to`, (e, p) => readOperation(f, e, p)),
  };
}

function readAction(f: Fields, spec: Raw): DubboAuthorizationPolicySpec['action'] {
  const v = spec['action'];
  if (v === undefined || v === null) return 'ALLOW';
  const action = ACTIONS.find((a) => a === v);
  if (action === undefined) {
    f.error('spec.action', `must be ALLOW or DENY, got ${describe(v)}`);
    return 'ALLOW';
  }
  return action;
}

export function readDubboAuthorizationPolicySpec(f: Fields, spec: Raw): DubboAuthorizationPolicySpec {
  rejectUnknownFields(f, spec, SPEC_FIELDS, 'spec', specHint);
  const out: DubboAuthorizationPolicySpec = {
    action: readAction(f, spec),
    rules: f.objects(spec, 'rules', 'spec.rules', (_f, o, p) => readRule(f, o, p)),
  };
  if (!hasErrors(f.issues)) f.issues.push(...dubboAuthorizationPolicyIssues(out, f.ref));
  return out;
}
