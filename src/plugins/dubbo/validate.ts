/**
 * Rules for a DubboAuthorizationPolicy that parsed without errors (the parser already refuses unknown fields,
 * wrong types and unknown actions): values that are legal but can never match, as warnings naming the field.
 * - An empty value (`principals: [""]`) matches no peer, interface or method (Istio refuses empty values in its
 *   AuthorizationPolicy, which this kind follows).
 * - A namespace value that, `*` aside, holds a character no namespace name has (`Shop`, `a_b`) matches no namespace.
 */
import type { DubboAuthorizationPolicySpec, DubboOperation, DubboSource } from './types.ts';
import { warning, type ConfigIssue, type ObjectRef } from '../../model/result.ts';

const SOURCE_LISTS = ['principals', 'notPrincipals', 'namespaces', 'notNamespaces'] as const;
const OPERATION_LISTS = ['interfaces', 'notInterfaces', 'methods', 'notMethods'] as const;

/** True when `value` without its `*` can be part of a namespace name: [a-z0-9-] only. */
function fitsNamespace(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const ok = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2a;
    if (!ok) return false;
  }
  return true;
}

function checkValues(
  out: ConfigIssue[],
  ref: ObjectRef,
  values: readonly string[],
  path: () => string,
  namespaces: boolean,
): void {
  values.forEach((v, i) => {
    if (v === '') out.push(warning(ref, `${path()}[${i}]`, 'an empty value matches nothing'));
    else if (namespaces && !fitsNamespace(v)) {
      out.push(
        warning(
          ref,
          `${path()}[${i}]`,
          `"${v}" matches no namespace: namespace names hold only lower-case letters, digits and "-"`,
        ),
      );
    }
  });
}

/** The warnings of DubboAuthorizationPolicy `ref`, in field order. */
export function dubboAuthorizationPolicyIssues(
  spec: DubboAuthorizationPolicySpec,
  ref: ObjectRef,
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  spec.rules.forEach((rule, r) => {
    rule.from.forEach(({ source }, k) => {
      for (const key of SOURCE_LISTS) {
        const values: DubboSource[typeof key] = source[key];
        if (values.length === 0) continue;
        const path = () => `spec.rules[${r}].from[${k}].source.${key}`;
        checkValues(out, ref, values, path, key === 'namespaces' || key === 'notNamespaces');
      }
    });
    rule.to.forEach(({ operation }, k) => {
      for (const key of OPERATION_LISTS) {
        const values: DubboOperation[typeof key] = operation[key];
        if (values.length === 0) continue;
        checkValues(out, ref, values, () => `spec.rules[${r}].to[${k}].operation.${key}`, false);
      }
    });
  });
  return out;
}
