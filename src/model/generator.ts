import type { Protocol } from './protocol.ts';
import type {
  DestinationRule,
  DubboAuthorizationPolicy,
  EnvoyFilterSpec,
  Gateway,
  GatewayServer,
  MeshConfig,
  MetaRouter,
  ServiceEntry,
  ServicePort,
  VirtualService,
} from './objects.ts';
import type { RedisContext } from './redis-context.ts';
import type { Result } from './result.ts';

/**
 * The resolved context of one port of one ServiceEntry, handed to the generator of that port's protocol
 * (deviation D4: every port by its own protocol's generator, with its own number).
 */
export interface SidecarContext {
  readonly mode: 'sidecar';
  readonly serviceEntry: ServiceEntry;
  readonly port: ServicePort;
  /** Index of `port` in `serviceEntry.spec.ports`, for issue paths (`spec.ports[<i>].name`). */
  readonly portIndex: number;
  /**
   * The ports the workloads receive `port` on (D16; src/envoyfilter/inbound-ports.ts), sorted, distinct, at least
   * one: the inbound filter has one patch per port, matching it and routing to its `inbound|<port>||` cluster.
   * Absent: `port.number`.
   */
  readonly inboundPorts?: readonly number[];
  readonly protocol: Protocol;
  readonly virtualService: VirtualService | undefined;
  readonly destinationRule: DestinationRule | undefined;
  readonly metaRouter: MetaRouter | undefined;
  /**
   * On native Dubbo ports: the DubboAuthorizationPolicies that apply, those of the ServiceEntry's namespace and of
   * the root namespace (D15), ordered by namespace, then name. Absent (or empty) on other ports and when none apply.
   */
  readonly dubboAuthorizationPolicies?: readonly DubboAuthorizationPolicy[];
  readonly mesh: MeshConfig;
  codecFor(applicationProtocol: string): string | undefined;
  /**
   * Per-protocol extensions: inputs only one protocol reads are resolved for that protocol's ports only and sit
   * in one optional field each, so the common context does not grow with every protocol. Set on `redis` ports.
   */
  readonly redis?: RedisContext;
}

/** One MetaProtocol server port of a Gateway and one MetaRouter bound to that gateway which routes to that port. */
export interface GatewayContext {
  readonly mode: 'gateway';
  readonly gateway: Gateway;
  readonly server: GatewayServer;
  readonly serverIndex: number;
  readonly metaRouter: MetaRouter;
  readonly mesh: MeshConfig;
  codecFor(applicationProtocol: string): string | undefined;
}

/**
 * A sidecar EnvoyFilter before placement: the namespace (root, ServiceEntry namespace or exportTo targets) is
 * decided by the caller, and so is name sanitising (D7).
 */
export interface FilterDraft {
  readonly name: string;
  readonly spec: EnvoyFilterSpec;
}

/**
 * A gateway-mode object before stamping: the gateway EnvoyFilter, or the VirtualService that makes istiod build
 * the gateway listener. The caller sanitises the name (D7) and adds apiVersion, labels and the source annotation.
 */
export type GatewayDraft =
  | {
      readonly kind: 'EnvoyFilter';
      readonly name: string;
      readonly namespace: string;
      readonly spec: EnvoyFilterSpec;
    }
  | {
      readonly kind: 'VirtualService';
      readonly name: string;
      readonly namespace: string;
      readonly spec: Readonly<Record<string, unknown>>;
    };

/**
 * A generator is a pure function of its context: no I/O, no logging, no clock. Same context, same output.
 * Errors in user config are returned as issues naming the object and the field, never thrown.
 */
export interface Generator {
  readonly name: string;
  /** The L7 protocols whose ports this generator handles. */
  readonly protocols: readonly Protocol[];
  generateSidecar(ctx: SidecarContext): Result<readonly FilterDraft[]>;
  /** Gateway mode (MetaProtocol only): the gateway EnvoyFilters and VirtualServices, as drafts. */
  generateGateway?(ctx: GatewayContext): Result<readonly GatewayDraft[]>;
}
