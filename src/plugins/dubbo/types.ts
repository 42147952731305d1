/** Typed shapes of dubbo.aeraki.io/v1alpha1 (parsed by parse.ts), added to the model's object union (PluginObjects). */
import type { KubeObject } from '../../model/objects.ts';

/**
 * Who a rule matches (all lists ANDed, each an OR of its values; `*`, `*x`, `x*` wildcards). Absent lists are []:
 * a source with every list empty matches any caller.
 */
export interface DubboSource {
  /** Peer identities without `spiffe://`: `cluster.local/ns/<ns>/sa/<sa>`. */
  readonly principals: readonly string[];
  readonly notPrincipals: readonly string[];
  readonly namespaces: readonly string[];
  readonly notNamespaces: readonly string[];
}

/** What a rule matches: Dubbo interfaces (the `service` of a call) and methods; empty lists as in DubboSource. */
export interface DubboOperation {
  readonly interfaces: readonly string[];
  readonly notInterfaces: readonly string[];
  readonly methods: readonly string[];
  readonly notMethods: readonly string[];
}

/** One rule: any `from` entry and any `to` entry; no entries means any source (any operation). */
export interface DubboRule {
  /** An entry without `source` is read as an empty source. */
  readonly from: readonly { readonly source: DubboSource }[];
  /** An entry without `operation` is read as an empty operation. */
  readonly to: readonly { readonly operation: DubboOperation }[];
}

export interface DubboAuthorizationPolicySpec {
  /** ALLOW when absent. */
  readonly action: 'ALLOW' | 'DENY';
  readonly rules: readonly DubboRule[];
}
/** Applies to every native Dubbo service of its namespace, or of the mesh in the root namespace (D15). */
export type DubboAuthorizationPolicy = KubeObject<'DubboAuthorizationPolicy', DubboAuthorizationPolicySpec>;

declare module '../../model/objects.ts' {
  interface PluginObjects {
    DubboAuthorizationPolicy: DubboAuthorizationPolicy;
  }
}
