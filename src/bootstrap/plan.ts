/**
 * The pure part of the namespace bootstrap controller: which namespaces want the bootstrap ConfigMap and what
 * to write so that exactly those hold the current one. Fixed against Aeraki (spec/aeraki-periphery.md 5.2),
 * which created the ConfigMap once and never updated or removed it.
 *
 * Planned through kit/diff.ts, keyed by namespace, with this ownership hook for an existing
 * `aeraki-bootstrap-config`:
 * - `managed`: labelled `manager: Aeraki` → updated when its content differs, deleted when its namespace is
 *   known and no longer wants it;
 * - `legacy`: unlabelled but written by Aeraki's field manager `Aeraki` (Aeraki never labelled it) → adopted
 *   (updated with the label) in a namespace that wants it, left alone elsewhere;
 * - `foreign`: anything else (e.g. applied by hand from Aeraki's k8s/aeraki-bootstrap-config.yaml) → never
 *   touched; a namespace that wants it is reported as a conflict.
 * A ConfigMap in a namespace absent from the given set is left alone (the namespace is being deleted, or not
 * yet seen): deletion only on positive absence of the label.
 */
import { CONTENT_HASH_ANNOTATION, MANAGER_LABEL, MANAGER_VALUE } from '../model/constants.ts';
import { fail, ok, type Result } from '../model/result.ts';
import { compareStrings } from '../model/order.ts';
import { isPlainObject } from '../util/json.ts';
import { diffObjects, type DiffUpdate, type Ownership } from '../kit/diff.ts';
import {
  BOOTSTRAP_CONFIGMAP_NAME,
  BOOTSTRAP_KEY,
  buildBootstrapConfigMap,
  validateBootstrapTarget,
  type BootstrapConfigMap,
  type BootstrapTarget,
} from './config.ts';

export const INJECTION_LABEL = 'istio-injection';
export const REVISION_LABEL = 'istio.io/rev';
/** The field manager Aeraki itself wrote the ConfigMap with (internal/config/constants AerakiFieldManager). */
export const AERAKI_LEGACY_FIELD_MANAGER = 'Aeraki';

export type { Ownership } from '../kit/diff.ts';

export interface NamespaceInfo {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A ConfigMap named `aeraki-bootstrap-config` as read from the API server. */
export interface ExistingConfigMap {
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly data: Readonly<Record<string, string>>;
  /** `metadata.managedFields[].manager`. */
  readonly managers: readonly string[];
}

export type BootstrapUpdate = DiffUpdate<BootstrapConfigMap, ExistingConfigMap>;

export interface BootstrapPlan {
  readonly creates: readonly BootstrapConfigMap[];
  /** `adopt` is set on the update of a legacy ConfigMap. */
  readonly updates: readonly BootstrapUpdate[];
  readonly deletes: readonly ExistingConfigMap[];
  readonly unchanged: number;
  /** Namespaces that want the ConfigMap but hold a foreign one. */
  readonly conflicts: readonly string[];
}

/** `istio-injection=enabled` or a non-empty `istio.io/rev` (Aeraki's namespace controller rule). */
export function wantsBootstrap(ns: NamespaceInfo): boolean {
  return ns.labels[INJECTION_LABEL] === 'enabled' || (ns.labels[REVISION_LABEL] ?? '') !== '';
}

/** A Namespace object (informer payload) → NamespaceInfo; undefined when it has no name. */
export function namespaceInfoOf(obj: unknown): NamespaceInfo | undefined {
  if (!isPlainObject(obj) || !isPlainObject(obj['metadata'])) return undefined;
  const m = obj['metadata'];
  if (typeof m['name'] !== 'string' || m['name'] === '') return undefined;
  const labels: Record<string, string> = {};
  if (isPlainObject(m['labels'])) {
    for (const [k, v] of Object.entries(m['labels'])) if (typeof v === 'string') labels[k] = v;
  }
  return { name: m['name'], labels };
}

/** The ownership hook of the diff (see the file comment). */
export function ownership(cm: ExistingConfigMap): Ownership {
  if (cm.labels[MANAGER_LABEL] === MANAGER_VALUE) return 'managed';
  return cm.managers.includes(AERAKI_LEGACY_FIELD_MANAGER) ? 'legacy' : 'foreign';
}

/** True when `existing` already is `desired` (our key, label and hash annotation; foreign keys are ignored). */
export function isCurrent(desired: BootstrapConfigMap, existing: ExistingConfigMap): boolean {
  return (
    existing.data[BOOTSTRAP_KEY] === desired.data[BOOTSTRAP_KEY] &&
    existing.labels[MANAGER_LABEL] === MANAGER_VALUE &&
    existing.annotations[CONTENT_HASH_ANNOTATION] === desired.metadata.annotations[CONTENT_HASH_ANNOTATION]
  );
}

/**
 * Plans the writes. `namespaces` is the complete set of namespaces the caller knows; `existing` every
 * `aeraki-bootstrap-config` ConfigMap. An invalid target gives no plan at all (nothing is deleted either).
 * Output lists are ordered by namespace.
 */
export function planBootstrap(
  namespaces: Iterable<NamespaceInfo>,
  existing: readonly ExistingConfigMap[],
  target: BootstrapTarget,
): Result<BootstrapPlan> {
  const invalid = validateBootstrapTarget(target);
  if (invalid.length > 0) return fail(invalid);
  const known = new Map<string, NamespaceInfo>();
  for (const ns of namespaces) known.set(ns.name, ns);
  const desired: BootstrapConfigMap[] = [];
  for (const name of [...known.keys()].sort()) {
    const ns = known.get(name);
    if (!ns || !wantsBootstrap(ns)) continue;
    const built = buildBootstrapConfigMap(name, target);
    if (!built.ok) return fail(built.issues);
    desired.push(built.value);
  }
  const ours = existing.filter((cm) => cm.name === BOOTSTRAP_CONFIGMAP_NAME);
  const plan = diffObjects<BootstrapConfigMap, ExistingConfigMap>(desired, ours, {
    desiredKey: (cm) => cm.metadata.namespace,
    existingKey: (cm) => cm.namespace,
    changed: (d, cm) => (cm !== undefined && isCurrent(d, cm) ? undefined : d),
    ownership,
    // Positive absence: only where the namespace is known (and does not want it, or it would be desired).
    mayDelete: (cm) => known.has(cm.namespace),
  });
  return ok({
    creates: plan.creates,
    updates: plan.updates,
    deletes: [...plan.deletes].sort((a, b) => compareStrings(a.namespace, b.namespace)),
    unchanged: plan.unchanged,
    conflicts: plan.conflicts.map((c) => c.desired.metadata.namespace),
  });
}

/**
 * The PUT body of an update: the desired object with the observed resourceVersion (precondition); labels,
 * annotations and data keys written by others are kept.
 */
export function updateBody(u: BootstrapUpdate): Record<string, unknown> {
  const { desired, existing } = u;
  return {
    ...desired,
    metadata: {
      ...desired.metadata,
      resourceVersion: existing.resourceVersion,
      labels: { ...existing.labels, ...desired.metadata.labels },
      annotations: { ...existing.annotations, ...desired.metadata.annotations },
    },
    data: { ...existing.data, ...desired.data },
  };
}
