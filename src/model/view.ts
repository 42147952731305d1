import type {
  ApplicationProtocol,
  ConfigKind,
  ConfigObject,
  DestinationRule,
  Gateway,
  MeshConfig,
  MetaRouter,
  ServiceEntry,
  VirtualService,
} from './objects.ts';
import type { KindIndex, KindSpec, ObjectOfKind } from './kinds.ts';
import type { ObjectRef } from './result.ts';
import type { AmbientKind } from './parse/ambient.ts';

/**
 * Read-only view of everything the controller knows, as generators and the route builder see it.
 *
 * Contract:
 * - list methods return objects ordered by namespace, then name; the arrays must not be mutated;
 * - `configForHost` compares hosts after FQDN normalisation (normalizeHost) on both sides; when several
 *   objects of a kind match, the oldest by metadata.creationTimestamp wins, then the first in namespace/name
 *   order (D6);
 * - lookups are O(1) in the number of objects (indexes, never a scan per service).
 */
export interface ConfigView {
  readonly rootNamespace: string;
  /** The plugins' kinds (plugins/registry.ts) the view was filled with, besides the core's. */
  readonly kinds: readonly KindSpec[];
  mesh(): MeshConfig;
  list<K extends ConfigKind>(kind: K): readonly Extract<ConfigObject, { kind: K }>[];
  get<K extends ConfigKind>(
    kind: K,
    namespace: string,
    name: string,
  ): Extract<ConfigObject, { kind: K }> | undefined;

  serviceEntries(): readonly ServiceEntry[];
  gateways(): readonly Gateway[];
  /**
   * What a generator needs for one service: the VirtualService and DestinationRule for `host` (normalised in
   * `namespace`, the ServiceEntry's) and the MetaRouter for it (MetaRouters are mesh-scoped: any namespace).
   */
  configForHost(host: string, namespace: string): HostConfig;
  /** MetaRouters whose `gateways` name `<namespace>/<name>` (a bare entry is qualified with the MetaRouter's namespace). */
  metaRoutersForGateway(gatewayNamespace: string, gatewayName: string): readonly MetaRouter[];
  /**
   * The objects of `index.kind` filed under `key` by `index` (a plugin's lookup index, model/kinds.ts), in
   * namespace/name order; empty when none.
   */
  indexed<K extends ConfigKind>(index: KindIndex<K>, key: string): readonly ObjectOfKind<K>[];
  /** Codec of a MetaProtocol application protocol (exact case): built in for dubbo and thrift, else from ApplicationProtocols. */
  codecFor(applicationProtocol: string): string | undefined;
  applicationProtocols(): readonly ApplicationProtocol[];
  /**
   * True when `host` is held for the ServiceEntries of `namespace` (normalised there): a VirtualService or
   * DestinationRule of that same namespace binding it (or an object of a plugin's kind of that namespace configuring
   * it, KindSpec.hostsOf, rejected because of a Secret it names) is rejected and has no valid version (never valid since the
   * controller started). Generation must then keep what exists for such a ServiceEntry (EnvoyFilters kept, RDS
   * routes withheld) rather than render it without the invalid object, whose contribution (Dubbo and Thrift
   * routes and subsets embedded in the filters) is known only to that output. Holding stays inside its owner's
   * reach (DESIGN habit 17): a rejected object never holds a ServiceEntry of another namespace, and a MetaRouter
   * holds no host at all (its contribution is its RDS routes: xds-rds/routes.ts). An object with a valid version
   * never holds: its last valid version stays in the view.
   */
  isHostHeld(host: string, namespace: string): boolean;
  /**
   * True when Gateway `<namespace>/<name>` is held: a MetaRouter binding it (`spec.gateways`) is rejected and has
   * no valid version, and is of that same namespace or no valid MetaRouter binds the Gateway (then its output is
   * only the invalid ones' contribution). Gateway generation must then keep what exists for the Gateway (its
   * EnvoyFilters and VirtualServices are neither rewritten nor deleted), as for a held host. A MetaRouter of
   * another namespace never holds a Gateway a valid MetaRouter binds (DESIGN habit 17): it is rendered from those.
   */
  isGatewayHeld(namespace: string, name: string): boolean;
  /**
   * Where the controller reads EndpointSlices (`serve` with Kubernetes access): the ports the endpoints of the
   * Kubernetes Service `namespace/service` receive on, by the Service port's name, each list sorted and distinct;
   * empty when it has no slice with endpoints. undefined where EndpointSlices are not read (render, validate, the
   * directory source). The map must not be mutated.
   */
  endpointPorts(namespace: string, service: string): ReadonlyMap<string, readonly number[]> | undefined;
  /**
   * The rejected objects holding `host` for the ServiceEntries of `namespace` (see isHostHeld: all of that
   * namespace), in kind, namespace, name order; empty when not held.
   */
  hostHolders(host: string, namespace: string): readonly ObjectRef[];
  /**
   * The rejected MetaRouters holding Gateway `<namespace>/<name>` (see isGatewayHeld: those of that namespace, and
   * those of others while no valid MetaRouter binds it), in namespace, name order; empty when not held.
   */
  gatewayHolders(namespace: string, name: string): readonly ObjectRef[];
}

/** What ConfigView.configForHost finds for one host; undefined where nothing is configured. */
export interface HostConfig {
  readonly virtualService: VirtualService | undefined;
  readonly destinationRule: DestinationRule | undefined;
  readonly metaRouter: MetaRouter | undefined;
}

export type ConfigEventType = 'added' | 'updated' | 'deleted' | 'held';

/**
 * Emitted by the store after it changed. `old` is set for updated and deleted, `object` for added and updated.
 * `held`: the hosts or Gateways bound by the rejected object `kind namespace/name` changed (it was rejected without
 * a valid version, or such a rejection was cleared), so what is held may have changed; neither `old` nor `object`
 * is set.
 * Kind `EndpointPorts` (type `updated`, neither `old` nor `object`): ConfigView.endpointPorts of the Service
 * `namespace/name` changed.
 * Kinds `Namespace`, `KubernetesGateway` and `GatewayClass` (added, updated, deleted; neither `old` nor `object`):
 * what AmbientView (model/ambient/view.ts) answers for that object changed; a Namespace's and a GatewayClass's
 * `namespace` is '' (cluster-scoped), `name` the object's name (controller/store-ambient.ts).
 */
export interface ConfigEvent {
  readonly type: ConfigEventType;
  readonly kind: ConfigKind | 'MeshConfig' | 'EndpointPorts' | AmbientKind;
  readonly namespace: string;
  readonly name: string;
  readonly old?: ConfigObject | MeshConfig;
  readonly object?: ConfigObject | MeshConfig;
  /** When the store applied the change (ms since the epoch, the store's clock): for convergence metrics. */
  readonly at?: number;
}
