/**
 * Decoded objects (plain JS values, as YAML/JSON decoding or an AdmissionReview gives them) → the typed objects
 * a store holds, the rejected ones with their reasons, and the mesh config of the root namespace (a mesh ConfigMap
 * elsewhere is ignored, with a warning). A document that almost names a kind read here is skipped with a warning
 * (near-miss.ts); other kinds are skipped silently. Shared by the
 * file source, `aeraki validate` and the validating webhook, so every path reads objects the same way. Never
 * throws on input.
 */
import { DEFAULT_MESH_CONFIG } from '../mesh.ts';
import type { ConfigKind, ConfigObject, MeshConfig } from '../objects.ts';
import {
  DEFAULT_PARSE_OPTIONS,
  meshConfigFromConfigMap,
  misplacedMeshConfigMap,
  parseConfigObject,
  recognisedKind,
  type ParseOptions,
} from './parse.ts';
import type { ConfigIssue, ObjectRef } from '../result.ts';
import { boundGatewaysOf, boundHostsOf } from '../bound-hosts.ts';
import { nearMissIssue } from './near-miss.ts';

/** An object a source saw but could not accept, with the reasons. */
export interface RejectedObject {
  readonly ref: ObjectRef;
  readonly issues: readonly ConfigIssue[];
  /**
   * The hosts the object binds as written (model/bound-hosts.ts), read from its raw form; absent or empty when
   * it binds none. While the object has no valid version the store holds these hosts.
   */
  readonly hosts?: readonly string[];
  /**
   * The Gateways a MetaRouter binds (`<namespace>/<name>`, model/bound-hosts.ts boundGatewaysOf); absent or empty
   * when none. While the object has no valid version the store holds these Gateways' output.
   */
  readonly gateways?: readonly string[];
}

export interface ParsedObjects {
  /** Valid objects, in input order (a later definition of the same object replaces the earlier one). */
  readonly objects: readonly ConfigObject[];
  /** Recognised objects that failed validation. */
  readonly rejected: readonly RejectedObject[];
  /** Every problem: the caller's (file errors, YAML syntax errors) first, then invalid objects and mesh config. */
  readonly issues: readonly ConfigIssue[];
  /** The mesh config from `<rootNamespace>/istio` (Istio defaults when absent or invalid). */
  readonly mesh: MeshConfig;
}

/** `Kind/namespace/name`: what makes two definitions the same object. */
export function objectIdentity(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** Parses already-decoded objects; `issues` (appended to, and returned) may already hold the caller's. */
export function parseRawObjects(
  raws: readonly unknown[],
  rootNamespace: string,
  issues: ConfigIssue[] = [],
  parseOptions: ParseOptions = DEFAULT_PARSE_OPTIONS,
): ParsedObjects {
  const byKey = new Map<string, ConfigObject>();
  const rejected = new Map<string, RejectedObject>();
  let mesh: MeshConfig = { ...DEFAULT_MESH_CONFIG, rootNamespace };
  for (const raw of raws) {
    const meshResult = meshConfigFromConfigMap(raw, rootNamespace);
    if (meshResult) {
      if (meshResult.ok) mesh = meshResult.value;
      issues.push(...meshResult.issues);
      continue;
    }
    const misplaced = misplacedMeshConfigMap(raw, rootNamespace);
    if (misplaced) issues.push(misplaced);
    const parsed = parseConfigObject(raw, parseOptions);
    if (!parsed) {
      const near = nearMissIssue(raw, parseOptions.kinds);
      if (near) issues.push(near);
      continue;
    }
    const kind = recognisedKind(raw, parseOptions.kinds) as ConfigKind;
    if (parsed.ok) {
      const key = objectIdentity(kind, parsed.value.metadata.namespace, parsed.value.metadata.name);
      byKey.delete(key);
      byKey.set(key, parsed.value);
      rejected.delete(key);
    } else {
      const ref = parsed.issues[0]?.ref ?? { kind, namespace: '', name: '' };
      const key = objectIdentity(kind, ref.namespace, ref.name);
      byKey.delete(key);
      const gateways = boundGatewaysOf(raw, ref.namespace);
      rejected.set(key, {
        ref,
        issues: parsed.issues,
        hosts: boundHostsOf(raw),
        ...(gateways.length > 0 ? { gateways } : {}),
      });
    }
    issues.push(...parsed.issues);
  }
  return { objects: [...byKey.values()], rejected: [...rejected.values()], issues, mesh };
}
