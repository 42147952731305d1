/**
 * What the ConfigStore holds of ambient mode once a source reads it (ConfigStore.readsAmbient): projections only
 * (DESIGN habit 14): a Namespace's name and labels, a Gateway API Gateway's WaypointGateway fields, a
 * GatewayClass's WaypointGatewayClass fields (model/parse/ambient.ts reads them), never whole objects.
 *
 * Events (model/view.ts ConfigEvent), after each real change, neither `old` nor `object` set (the view answers):
 * - kind `Namespace`: `namespace` '' (a cluster-scoped object) and `name` the Namespace's name, so its dependency
 *   key is `obj:Namespace//<name>` (kit/incremental/dependencies.ts eventKeys). A label change of a Namespace changes
 *   the binding of every Service and ServiceEntry of that namespace without a label of its own
 *   (model/ambient/binding.ts waypointOf) and their attachment to a waypoint whose listener has a `Selector`:
 *   incremental generation regenerates, on this event, every service whose generation looked the Namespace up
 *   through the view (it records that key: envoyfilter/waypoint.ts recordingAmbientView);
 * - kind `KubernetesGateway` (istiod's name for the Gateway API Gateway): `namespace`/`name` of the Gateway: the
 *   services bound to it change;
 * - kind `GatewayClass`: `namespace` '' and `name` the class: the waypoints of that class change (traffic type,
 *   inbound binding).
 * A new version with the same projection is no change (a status or resourceVersion touch).
 */
import {
  indexWaypoints,
  type WaypointGateway,
  type WaypointGatewayClass,
  type WaypointIndex,
} from '../model/ambient/waypoint.ts';
import type { AmbientNamespace } from '../model/ambient/binding.ts';
import type { AmbientView } from '../model/ambient/view.ts';
import type { AmbientKind, AmbientObject } from '../model/parse/ambient.ts';
import type { ConfigEvent } from '../model/view.ts';
import { stableStringify } from '../util/json.ts';

type Value = AmbientObject['value'];

/** The writes of the sources reading ambient inputs: keyed (Kubernetes, MCP) and full-state (directory, MCP). */
export interface AmbientWrites {
  /** Adds or replaces one object; emits added or updated when its projection changed. */
  set(o: AmbientObject): void;
  /** Removes one object (`namespace` '' for Namespaces and GatewayClasses); emits deleted when it was held. */
  remove(kind: AmbientKind, namespace: string, name: string): void;
  /**
   * Full state of one kind: `objects` replace what is held, except the keys in `keep` (objects the source holds
   * but cannot read now: their last good version stays), which are left as they are.
   */
  replace(kind: AmbientKind, objects: readonly AmbientObject[], keep?: ReadonlySet<string>): void;
}

/** Where ambient inputs go: the ConfigStore. */
export interface AmbientTarget {
  /** Declares that ambient inputs are read (the view answers from now on) and returns where they go. */
  readsAmbient(): AmbientWrites;
}

/** The key of an object of an ambient kind: `<namespace>/<name>`, the namespace '' for cluster-scoped kinds. */
export function ambientKey(kind: AmbientKind, namespace: string, name: string): string {
  return kind === 'KubernetesGateway' ? `${namespace}/${name}` : `/${name}`;
}

/** The key of an object read. */
export function ambientObjectKey(o: AmbientObject): string {
  return o.kind === 'KubernetesGateway'
    ? ambientKey(o.kind, o.value.namespace, o.value.name)
    : ambientKey(o.kind, '', o.value.name);
}

export const NO_WAYPOINTS: WaypointIndex = indexWaypoints([]);

export class AmbientState implements AmbientView, AmbientWrites {
  private readonly held = new Map<AmbientKind, Map<string, Value>>([
    ['Namespace', new Map()],
    ['KubernetesGateway', new Map()],
    ['GatewayClass', new Map()],
  ]);
  private index: WaypointIndex | undefined;

  constructor(private readonly emit: (e: ConfigEvent) => void) {}

  ambientNamespace(name: string): AmbientNamespace | undefined {
    return this.of('Namespace').get(ambientKey('Namespace', '', name)) as AmbientNamespace | undefined;
  }

  waypoints(): WaypointIndex {
    this.index ??= indexWaypoints(
      [...this.of('KubernetesGateway').values()] as WaypointGateway[],
      [...this.of('GatewayClass').values()] as WaypointGatewayClass[],
    );
    return this.index;
  }

  set(o: AmbientObject): void {
    const key = ambientObjectKey(o);
    const m = this.of(o.kind);
    const old = m.get(key);
    if (old !== undefined && stableStringify(old) === stableStringify(o.value)) return;
    m.set(key, o.value);
    this.changed(o.kind, key, old === undefined ? 'added' : 'updated');
  }

  remove(kind: AmbientKind, namespace: string, name: string): void {
    const key = ambientKey(kind, namespace, name);
    if (!this.of(kind).delete(key)) return;
    this.changed(kind, key, 'deleted');
  }

  replace(kind: AmbientKind, objects: readonly AmbientObject[], keep: ReadonlySet<string> = NONE): void {
    const next = new Set<string>();
    for (const o of objects) {
      if (o.kind !== kind) throw new Error(`replace(${kind}) given a ${o.kind}`);
      next.add(ambientObjectKey(o));
    }
    for (const key of [...this.of(kind).keys()]) {
      if (next.has(key) || keep.has(key)) continue;
      this.of(kind).delete(key);
      this.changed(kind, key, 'deleted');
    }
    for (const o of objects) this.set(o);
  }

  private of(kind: AmbientKind): Map<string, Value> {
    return this.held.get(kind)!;
  }

  private changed(kind: AmbientKind, key: string, type: ConfigEvent['type']): void {
    if (kind !== 'Namespace') this.index = undefined;
    const slash = key.indexOf('/');
    const name = key.slice(slash + 1);
    this.emit({ type, kind, namespace: key.slice(0, slash), name });
  }
}

const NONE: ReadonlySet<string> = new Set();
