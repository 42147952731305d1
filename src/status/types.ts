/**
 * What the status controller reads and writes: the Aeraki objects as the API server holds them (generation, uid,
 * current status), the `status` it writes (metav1.Condition entries and `observedGeneration`), and the
 * events.k8s.io/v1 Events it creates.
 */
import type { ListenerRejection } from '../model/listener-rejections.ts';
import type { RejectedObject } from '../model/parse/objects.ts';
import type { ConfigIssue, ObjectRef } from '../model/result.ts';
import type { RouteAcks } from '../model/route-acks.ts';
import type { ConfigEvent, ConfigView } from '../model/view.ts';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A metav1.Condition. */
export interface Condition {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
  /** RFC 3339; kept from the current condition while `status` does not change. */
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
}

/** The `status` of an Aeraki object. */
export interface ObjectStatus {
  readonly observedGeneration?: number;
  readonly conditions: readonly Condition[];
}

/** An Aeraki object as listed from the API server. */
export interface StatusTarget {
  readonly ref: ObjectRef;
  readonly generation: number;
  readonly uid: string;
  /** Undefined when the object has no status yet. */
  readonly status: ObjectStatus | undefined;
}

/** One status write: the complete `status` of `target`. */
export interface StatusPatch {
  readonly target: StatusTarget;
  readonly status: ObjectStatus;
}

/** `ProxyRejected`: proxies reject a MetaRouter's routes (RDS) or a listener this controller patched
 *  (proxy-rejections.ts); `ProxyLacksExtension`: a proxy has no implementation of a patched filter. */
export type EventReason = 'Invalid' | 'Conflict' | 'Held' | 'ProxyRejected' | 'ProxyLacksExtension';

/** One events.k8s.io/v1 Event to create on the object `ref`. */
export interface EventSpec {
  /** Identity for deduplication: object, reason and note (ProxyRejected: object, reason, route and version). */
  readonly key: string;
  readonly ref: ObjectRef;
  readonly uid?: string;
  readonly type: 'Warning' | 'Normal';
  readonly reason: EventReason;
  readonly action: 'Validate' | 'Program';
  readonly note: string;
}

/** What the planner reads besides the API server: the store, its rejections and the last generation issues. */
export interface StatusInputs {
  readonly view: ConfigView;
  readonly rejected: readonly RejectedObject[];
  readonly issues: readonly ConfigIssue[];
  /** The conflicts of the same generation pass (StatusPlanInput.conflicts). */
  readonly conflicts?: readonly ConfigIssue[];
  /** Listener rejections attributed to this controller's EnvoyFilters (StatusPlanInput.listenerRejections). */
  readonly listenerRejections?: readonly ListenerRejection[];
  /** The proxies' answers to the routes served over RDS (StatusPlanInput.routeAcks). */
  readonly routeAcks?: RouteAcks;
  /** The store's events since the inputs were last read; absent where not followed (every target is planned). */
  readonly changes?: readonly ConfigEvent[];
}

/** The targets changed or deleted since the last list (a watch-fed cache answers it). */
export interface TargetChanges {
  readonly changed: readonly StatusTarget[];
  readonly deleted: readonly ObjectRef[];
}
