/**
 * The clusters of our own waypoint and their endpoints (issue 39; docs/waypoint-own.md section 4, "CDS/EDS"): one
 * `envoy.config.cluster.v3.Cluster` per name a generator asked for (`outbound|<port>|<subset>|<host>`, as
 * OwnWaypointContext.clusterOf names it), `type: EDS` over ADS, and its `ClusterLoadAssignment` holding the ready
 * workload addresses of that host and port (pod IPs, never a service VIP: ztunnel would send a connection to a VIP
 * that has a waypoint back to the waypoint, docs section 1 "Loop avoidance"), those of the DestinationRule subset's
 * labels when a subset is named. Plain TCP: the waypoint pod is ambient, so ztunnel wraps its outbound in HBONE.
 */
import type { EndpointsView, WorkloadEndpoint } from '../model/ambient/endpoints.ts';
import { CLUSTER_TYPE, ENDPOINT_TYPE, type ProtoJson, type XdsResource } from '../model/ambient/xds.ts';
import type { DestinationRule, LoadBalancerSettings, ServiceEntry } from '../model/objects.ts';
import { refOf, warning, type ConfigIssue } from '../model/result.ts';

/** What a generator named through `ctx.clusterOf(subset, host, port)`. */
export interface ClusterRequest {
  readonly name: string;
  readonly subset: string | undefined;
  readonly host: string;
  readonly port: number;
}

/** What one cluster is built from, resolved by the caller through its (recording) view. */
export interface ClusterTarget {
  /** The Service or ServiceEntry serving `request.host`, if one is known. */
  readonly service: ServiceEntry | undefined;
  /** The DestinationRule of `request.host`, if any. */
  readonly destinationRule: DestinationRule | undefined;
}

/** Where a cluster's issues are filed: the service being translated and the field of the port that asked for it. */
export interface IssueSite {
  readonly service: ServiceEntry;
  readonly path: string;
  readonly issues: ConfigIssue[];
}

/** The connect timeout of every cluster (Istio's default `connectTimeout`, meshConfig `connectTimeout: 10s`). */
export const CONNECT_TIMEOUT = '10s';

/**
 * Istio's `loadBalancer.simple` as Envoy's `lb_policy` (istio/istio pilot/pkg/networking/core/cluster_traffic_policy.go
 * applyLoadBalancer @b9a2bbd2 :293-308): LEAST_CONN is LEAST_REQUEST, and the default (UNSPECIFIED or none) is
 * LEAST_REQUEST (defaultLBAlgorithm :354). PASSTHROUGH needs an ORIGINAL_DST cluster, which an EDS cluster is not.
 */
const LB_POLICY: Readonly<Record<string, string>> = {
  ROUND_ROBIN: 'ROUND_ROBIN',
  LEAST_CONN: 'LEAST_REQUEST',
  LEAST_REQUEST: 'LEAST_REQUEST',
  RANDOM: 'RANDOM',
  UNSPECIFIED: 'LEAST_REQUEST',
};
const DEFAULT_LB_POLICY = 'LEAST_REQUEST';

/** The subset's load balancer over the rule's (a subset's traffic policy replaces the rule's, as MergeTrafficPolicy does). */
function loadBalancerOf(
  rule: DestinationRule | undefined,
  subset: string | undefined,
): LoadBalancerSettings | undefined {
  const own = subset === undefined ? undefined : rule?.spec.subsets.find((s) => s.name === subset);
  return own?.trafficPolicy?.loadBalancer ?? rule?.spec.trafficPolicy?.loadBalancer;
}

function lbPolicyOf(request: ClusterRequest, target: ClusterTarget, site: IssueSite): string {
  const lb = loadBalancerOf(target.destinationRule, request.subset);
  const warn = (what: string) =>
    site.issues.push(
      warning(
        refOf(site.service),
        site.path,
        `cluster ${request.name}: ${what} is not applied on our waypoint; ${DEFAULT_LB_POLICY} is used`,
      ),
    );
  if (lb?.consistentHash !== undefined) warn('loadBalancer.consistentHash');
  if (lb?.simple === undefined) return DEFAULT_LB_POLICY;
  const policy = LB_POLICY[lb.simple];
  if (policy === undefined) warn(`loadBalancer.simple ${lb.simple}`);
  return policy ?? DEFAULT_LB_POLICY;
}

/** True when every label of `selector` is on `labels`. */
function selects(
  selector: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
): boolean {
  for (const [k, v] of Object.entries(selector)) if (labels[k] !== v) return false;
  return true;
}

/** The endpoints of the request (those the subset's labels select), with a warning when none can be found. */
function endpointsOf(
  request: ClusterRequest,
  target: ClusterTarget,
  endpoints: EndpointsView,
  site: IssueSite,
): readonly WorkloadEndpoint[] {
  const warn = (why: string) => {
    const message = `cluster ${request.name}: ${why}: it has no endpoints`;
    site.issues.push(warning(refOf(site.service), site.path, message));
    return [];
  };
  const service = target.service;
  if (service === undefined) return warn(`no Service or ServiceEntry has host ${request.host}`);
  const port = service.spec.ports.find((p) => p.number === request.port);
  if (port === undefined) {
    const { namespace, name } = service.metadata;
    return warn(`${service.kind} ${namespace}/${name} has no port ${request.port}`);
  }
  const all = endpoints.endpointsOf(service, port);
  if (request.subset === undefined) return all;
  const subset = target.destinationRule?.spec.subsets.find((s) => s.name === request.subset);
  if (subset === undefined) return warn(`no DestinationRule of ${request.host} has subset ${request.subset}`);
  return all.filter((e) => selects(subset.labels, e.labels));
}

function lbEndpoint(e: WorkloadEndpoint): ProtoJson {
  const endpoint = { address: { socket_address: { address: e.address, port_value: e.port } } };
  // LbEndpoint.load_balancing_weight is at least 1 (endpoint_components.proto); absent means 1.
  return e.weight !== undefined && e.weight >= 1
    ? { endpoint, load_balancing_weight: e.weight }
    : { endpoint };
}

/** The Cluster and ClusterLoadAssignment of one request. */
export function clusterResources(
  request: ClusterRequest,
  target: ClusterTarget,
  endpoints: EndpointsView,
  site: IssueSite,
): readonly XdsResource[] {
  const cluster: ProtoJson = {
    name: request.name,
    type: 'EDS',
    eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } },
    connect_timeout: CONNECT_TIMEOUT,
    lb_policy: lbPolicyOf(request, target, site),
  };
  const found = endpointsOf(request, target, endpoints, site);
  const assignment: ProtoJson =
    found.length === 0
      ? { cluster_name: request.name }
      : { cluster_name: request.name, endpoints: [{ lb_endpoints: found.map(lbEndpoint) }] };
  return [
    { typeUrl: CLUSTER_TYPE, name: request.name, json: cluster },
    { typeUrl: ENDPOINT_TYPE, name: request.name, json: assignment },
  ];
}
