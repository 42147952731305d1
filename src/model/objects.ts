/**
 * Typed shapes of the Istio and Aeraki objects the controller reads and writes. Field names follow the
 * Kubernetes JSON form (lowerCamelCase). Every object is immutable once parsed (see parse.ts); optional fields
 * that were absent in the input stay undefined.
 */
import type { PolicyTargetRef } from './ambient/envoyfilter.ts';

export interface ObjectMeta {
  readonly name: string;
  /** '' for cluster-scoped kinds (ApplicationProtocol). */
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** RFC 3339, as the API server writes it; '' when unknown. */
  readonly creationTimestamp: string;
  readonly resourceVersion: string;
  readonly generation?: number;
  readonly uid?: string;
}

export interface KubeObject<K extends string, S> {
  readonly apiVersion: string;
  readonly kind: K;
  readonly metadata: ObjectMeta;
  readonly spec: S;
}

// ---------------------------------------------------------------- networking.istio.io (v1alpha3 = v1beta1 = v1)

export interface StringMatch {
  readonly exact?: string;
  readonly prefix?: string;
  readonly regex?: string;
}

export interface PortSelector {
  readonly number?: number;
}

export interface Destination {
  readonly host: string;
  readonly subset?: string;
  readonly port?: PortSelector;
}

export interface ServicePort {
  readonly number: number;
  readonly protocol?: string;
  readonly name: string;
  /** The port the workloads receive on (inbound filters match it, D16); absent: `number`. */
  readonly targetPort?: number;
  /**
   * A Kubernetes Service's named `targetPort` (a container port's name; src/model/parse/service.ts), which only the
   * Service's EndpointSlices resolve. Never set on a ServiceEntry (whose targetPort is a number).
   */
  readonly targetPortName?: string;
}

export interface WorkloadSelector {
  readonly labels: Readonly<Record<string, string>>;
}

export interface ServiceEntrySpec {
  readonly hosts: readonly string[];
  readonly addresses: readonly string[];
  readonly ports: readonly ServicePort[];
  readonly location?: string;
  readonly resolution?: string;
  readonly exportTo?: readonly string[];
  readonly workloadSelector?: WorkloadSelector;
  /** The inline endpoints (validation reads their addresses, our waypoint's EDS all of it). */
  readonly endpoints?: readonly ServiceEntryEndpoint[];
}

/**
 * One of `spec.endpoints` of a ServiceEntry: a WorkloadEntry (istio/api networking/v1alpha3/workload_entry.proto,
 * protos/istio/networking/v1alpha3/workload_entry.proto here), as far as it is read. Absent fields stay undefined.
 */
export interface ServiceEntryEndpoint {
  /** An IP, a Unix socket (`unix://...`) or a DNS name; '' when absent. */
  readonly address: string;
  /** The port this endpoint receives each service port on, by the service port's name. */
  readonly ports?: Readonly<Record<string, number>>;
  readonly labels?: Readonly<Record<string, string>>;
  /** Load-balancing weight; 0 or absent: the default (1). */
  readonly weight?: number;
}
/** An Istio ServiceEntry object. */
export type IstioServiceEntry = KubeObject<'ServiceEntry', ServiceEntrySpec>;

/**
 * A Kubernetes `v1 Service` as istiod converts it into a ServiceEntry (src/model/parse/service.ts): the spec is the
 * converted ServiceEntry spec; kind, apiVersion and metadata stay the Service's, so the store keeps it apart from a
 * ServiceEntry of the same name, and issues and source keys name the Service.
 */
export type ConvertedService = KubeObject<'Service', ServiceEntrySpec>;

/** What generators and the route builder take: a ServiceEntry, or a Kubernetes Service converted into one. */
export type ServiceEntry = IstioServiceEntry | ConvertedService;

export interface HTTPMatchRequest {
  readonly name?: string;
  readonly method?: StringMatch;
  readonly headers?: Readonly<Record<string, StringMatch>>;
  readonly port?: number;
}

export interface HTTPRouteDestination {
  readonly destination: Destination;
  readonly weight?: number;
}

/** Read for validation only, as are mirror, mirrorPercentage and timeout of an HTTPRoute. */
export interface HTTPRetry {
  readonly attempts?: number;
  readonly perTryTimeout?: string;
}

export interface HTTPRoute {
  readonly name?: string;
  readonly match: readonly HTTPMatchRequest[];
  readonly route: readonly HTTPRouteDestination[];
  readonly mirror?: Destination;
  readonly mirrorPercentage?: { readonly value?: number };
  readonly timeout?: string;
  readonly retries?: HTTPRetry;
}

export interface L4MatchAttributes {
  readonly port?: number;
}

export interface RouteDestination {
  readonly destination: Destination;
  readonly weight?: number;
}

export interface TCPRoute {
  readonly match: readonly L4MatchAttributes[];
  readonly route: readonly RouteDestination[];
}

/** Read for validation only: no generator uses TLS routes. */
export interface TLSRoute {
  readonly match: readonly { readonly sniHosts: readonly string[]; readonly port?: number }[];
  readonly route: readonly RouteDestination[];
}

export interface VirtualServiceSpec {
  readonly hosts: readonly string[];
  readonly gateways: readonly string[];
  readonly http: readonly HTTPRoute[];
  readonly tcp: readonly TCPRoute[];
  readonly tls?: readonly TLSRoute[];
  readonly exportTo?: readonly string[];
}
export type VirtualService = KubeObject<'VirtualService', VirtualServiceSpec>;

export interface ConsistentHashLB {
  readonly httpHeaderName?: string;
  readonly useSourceIp?: boolean;
  readonly httpQueryParameterName?: string;
  /** Read for validation only (the route builder hashes on headers). */
  readonly httpCookie?: { readonly name: string; readonly ttl?: string };
}

export interface LoadBalancerSettings {
  readonly simple?: string;
  readonly consistentHash?: ConsistentHashLB;
}

/** The numbers and durations of a connection pool; read for validation only. */
export interface ConnectionPoolSettings {
  readonly numbers: Readonly<Record<string, number>>;
  readonly durations: Readonly<Record<string, string>>;
}

/** The numbers and durations of outlier detection; read for validation only. */
export type OutlierDetection = ConnectionPoolSettings;

export interface TrafficPolicy {
  readonly loadBalancer?: LoadBalancerSettings;
  readonly connectionPool?: ConnectionPoolSettings;
  readonly outlierDetection?: OutlierDetection;
}

export interface Subset {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly trafficPolicy?: TrafficPolicy;
}

export interface DestinationRuleSpec {
  readonly host: string;
  readonly trafficPolicy?: TrafficPolicy;
  readonly subsets: readonly Subset[];
  readonly exportTo?: readonly string[];
}
export type DestinationRule = KubeObject<'DestinationRule', DestinationRuleSpec>;

export interface GatewayPort {
  readonly number: number;
  readonly protocol?: string;
  readonly name: string;
  readonly targetPort?: number;
}

export interface GatewayServer {
  readonly port: GatewayPort;
  readonly hosts: readonly string[];
  readonly name?: string;
}

export interface GatewaySpec {
  readonly servers: readonly GatewayServer[];
  readonly selector: Readonly<Record<string, string>>;
}
export type Gateway = KubeObject<'Gateway', GatewaySpec>;

// ---------------------------------------------------------------- metaprotocol.aeraki.io/v1alpha1

export interface MetaRouteMatch {
  /** attribute name -> match; `null` (or `regex: "*"`) means "present". Iterate in sorted key order (D5). */
  readonly attributes: Readonly<Record<string, StringMatch | null>>;
}

export interface MetaRouteDestination {
  readonly destination: Destination;
  readonly weight?: number;
}

export interface KeyValue {
  readonly key: string;
  readonly value: string;
}

export interface MetaRoute {
  readonly name?: string;
  readonly match?: MetaRouteMatch;
  readonly route: readonly MetaRouteDestination[];
  readonly mirror?: Destination;
  readonly mirrorPercentage?: { readonly value?: number };
  readonly requestMutation: readonly KeyValue[];
  readonly responseMutation: readonly KeyValue[];
}

/** Durations are kept as proto3 JSON strings (`"60s"`, `"0.100s"`), already validated. */
export interface TokenBucket {
  readonly maxTokens: number;
  readonly tokensPerFill: number;
  readonly fillInterval: string;
}

export interface LocalRateLimitCondition {
  readonly match?: MetaRouteMatch;
  readonly tokenBucket?: TokenBucket;
}

export interface LocalRateLimit {
  readonly tokenBucket?: TokenBucket;
  readonly conditions: readonly LocalRateLimitCondition[];
}

export interface RateLimitDescriptor {
  readonly property: string;
  readonly descriptorKey: string;
}

export interface GlobalRateLimit {
  readonly match?: MetaRouteMatch;
  readonly domain: string;
  /** proto3 JSON duration, absent when not given (D8). */
  readonly requestTimeout?: string;
  readonly denyOnFail?: boolean;
  readonly rateLimitService: string;
  readonly descriptors: readonly RateLimitDescriptor[];
}

export interface MetaRouterSpec {
  readonly hosts: readonly string[];
  readonly gateways: readonly string[];
  readonly exportTo: readonly string[];
  readonly routes: readonly MetaRoute[];
  readonly localRateLimit?: LocalRateLimit;
  readonly globalRateLimit?: GlobalRateLimit;
}
export type MetaRouter = KubeObject<'MetaRouter', MetaRouterSpec>;

export interface ApplicationProtocolSpec {
  readonly protocol: string;
  readonly codec: string;
}
export type ApplicationProtocol = KubeObject<'ApplicationProtocol', ApplicationProtocolSpec>;

// ---------------------------------------------------------------- v1 Secret, plugins' kinds

/** A v1 Secret as the controller keeps it: `data` decoded, `stringData` merged over it. */
export interface SecretSpec {
  readonly data: Readonly<Record<string, string>>;
}
/**
 * A v1 Secret, read only when an object names it (model/secret-refs.ts), and only the keys used; its `spec` is the
 * decoded data (it has no spec on the wire).
 */
export type Secret = KubeObject<'Secret', SecretSpec>;

/**
 * The kinds plugins add, kind name -> object type: each plugin augments this interface for its own kinds
 * (`declare module '../../model/objects.ts' { interface PluginObjects { ... } }` in plugins/<name>/types.ts), so
 * the object union stays closed and typed while no code outside plugins/ names a protocol's kind.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PluginObjects {}
export type PluginObject = PluginObjects[keyof PluginObjects];

// ---------------------------------------------------------------- Istio MeshConfig (the fields that matter)

export interface MeshConfig {
  readonly accessLogFile: string;
  /** 'TEXT' or 'JSON' */
  readonly accessLogEncoding: 'TEXT' | 'JSON';
  readonly accessLogFormat: string;
  readonly enableTracing: boolean;
  /** undefined when defaultConfig.tracing is absent; Istio's defaults have it with sampling 0. */
  readonly tracingSampling: number | undefined;
  readonly rootNamespace: string;
}

// ---------------------------------------------------------------- output: EnvoyFilter (and gateway VirtualService)

/** One config patch. `match` is absent on a CLUSTER ADD, `patch.value` on a REMOVE. */
export interface EnvoyFilterPatch {
  readonly applyTo: string;
  readonly match?: Readonly<Record<string, unknown>>;
  readonly patch: { readonly operation: string; readonly value?: Readonly<Record<string, unknown>> };
}

export interface EnvoyFilterSpec {
  readonly workloadSelector?: { readonly labels: Readonly<Record<string, string>> };
  /** Waypoint filters only (model/ambient/envoyfilter.ts): the waypoint Gateway the filter attaches to. */
  readonly targetRefs?: readonly PolicyTargetRef[];
  readonly configPatches: readonly EnvoyFilterPatch[];
}

/** What the controller writes: exactly the fields it owns. */
export interface OutputMeta {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface EnvoyFilterObject {
  readonly apiVersion: 'networking.istio.io/v1alpha3';
  readonly kind: 'EnvoyFilter';
  readonly metadata: OutputMeta;
  readonly spec: EnvoyFilterSpec;
}

export interface GatewayVirtualServiceObject {
  readonly apiVersion: 'networking.istio.io/v1alpha3';
  readonly kind: 'VirtualService';
  readonly metadata: OutputMeta;
  readonly spec: Readonly<Record<string, unknown>>;
}

export type OutputObject = EnvoyFilterObject | GatewayVirtualServiceObject;

export type IstioConfig = IstioServiceEntry | VirtualService | DestinationRule | Gateway;
export type AerakiConfig = MetaRouter | ApplicationProtocol;
/** Kubernetes core kinds read as config (Services are not served over MCP: istiod sends its own synthetic
 * ServiceEntries; Secrets are read only when an object names them). */
export type KubernetesConfig = ConvertedService | Secret;
export type ConfigObject = IstioConfig | AerakiConfig | KubernetesConfig | PluginObject;
export type ConfigKind = ConfigObject['kind'];
/** The Istio and Aeraki kinds of the core, then the Kubernetes ones (the plugins' kinds go between: configKinds). */
const CORE_CONFIG_KINDS: readonly ConfigKind[] = [
  'ServiceEntry',
  'VirtualService',
  'DestinationRule',
  'Gateway',
  'MetaRouter',
  'ApplicationProtocol',
];
const KUBERNETES_KINDS: readonly ConfigKind[] = ['Service', 'Secret'];
/** The kinds of the core, without any plugin's. */
export const CORE_KINDS: readonly ConfigKind[] = [...CORE_CONFIG_KINDS, ...KUBERNETES_KINDS];

/** Every kind read: the core's Istio and Aeraki kinds, the plugins' (`kinds`, in plugin order), Service, Secret. */
export function configKinds(kinds: readonly { readonly kind: ConfigKind }[]): readonly ConfigKind[] {
  return [...CORE_CONFIG_KINDS, ...kinds.map((k) => k.kind), ...KUBERNETES_KINDS];
}
