/**
 * What one Service or ServiceEntry contributes to our own waypoint (issue 39): when it is bound to a Gateway of class
 * `aeraki-waypoint` (model/ambient/binding.ts waypointOf, istiod's rules, as envoyfilter/waypoint.ts binds services
 * to Istio's waypoint), one filter chain per handled port (listener.ts serviceChain: the peer principal first, then
 * what the port's generator builds, Generator.generateOwnWaypoint), the route resources the generator returns and
 * every cluster it named, with its endpoints (clusters.ts). What the Gateway cannot carry becomes a coverage line
 * naming the service, the port and why (model/ambient/xds.ts WaypointCoverage). Pure over its inputs, as the rest of
 * generation: the caller records what was read (incremental.ts).
 */
import { waypointOf, type WaypointBinding } from '../model/ambient/binding.ts';
import type { EndpointsView } from '../model/ambient/endpoints.ts';
import { istioProtocolOf } from '../model/ambient/names.ts';
import { gatewayKey, OWN_WAYPOINT_CLASS, type GatewayKey } from '../model/ambient/own-waypoint.ts';
import type { AmbientView } from '../model/ambient/view.ts';
import type { ProtoJson, ServiceContribution, XdsResource } from '../model/ambient/xds.ts';
import type { Generator } from '../model/generator.ts';
import { guarded } from '../model/guarded.ts';
import { heldIssue, holdersOf } from '../model/held.ts';
import type { ServiceEntry, ServicePort } from '../model/objects.ts';
import { compareStrings } from '../model/order.ts';
import { protocolSegment, type Protocol } from '../model/protocol.ts';
import { ok, refOf, warning, type ConfigIssue } from '../model/result.ts';
import type { ConfigView } from '../model/view.ts';
import { clusterResources, type ClusterRequest } from './clusters.ts';
import { prefixRange, serviceChain } from './listener.ts';
import {
  gatewayImage,
  ownWaypointContext,
  type ServicePass,
  type TranslateOptions,
} from './translate-context.ts';

export interface TranslateInputs {
  readonly view: ConfigView;
  readonly ambient: AmbientView;
  readonly endpoints: EndpointsView;
  /** The generator of each protocol (as envoyfilter's generatorSet builds it). */
  readonly byProtocol: ReadonlyMap<Protocol, Generator>;
  readonly options: TranslateOptions;
  /** The Service or ServiceEntry serving `host` (normalised in `namespace`), for clusters of other hosts. */
  serviceOfHost(host: string, namespace: string): ServiceEntry | undefined;
}

export interface ServiceTranslation {
  /** The Gateway of our class the service is bound to, if any. */
  readonly gateway: GatewayKey | undefined;
  /** What it contributes there; undefined when nothing (no port carried). */
  readonly contribution: ServiceContribution | undefined;
  readonly issues: readonly ConfigIssue[];
  /** Coverage lines: `<Kind> <ns>/<name> port <name> (<number>): <why>`, in port order. */
  readonly uncarried: readonly string[];
  /** A generator failed or a host of the service is held: its last good contribution stays (DESIGN habits 2, 3). */
  readonly keep: boolean;
}

const NOTHING: ServiceTranslation = {
  gateway: undefined,
  contribution: undefined,
  issues: [],
  uncarried: [],
  keep: false,
};

/** Why a binding to a Gateway of our class is not used (istiod has no waypoint for it yet, or refuses it). */
const UNUSED: Partial<Record<string, string>> = {
  'gateway-not-ready': 'the Gateway has no status.addresses yet',
  'attachment-denied': "the Gateway's allowedRoutes do not admit this namespace",
  'not-service-traffic': 'the waypoint does not take service traffic (istio.io/waypoint-for)',
};

function unusedBinding(inputs: TranslateInputs, se: ServiceEntry, binding: WaypointBinding) {
  if (binding.bound || binding.waypoint === undefined) return NOTHING;
  const why = UNUSED[binding.reason];
  const { namespace, name } = binding.waypoint;
  const gateway = inputs.ambient.waypoints().gateway(namespace, name);
  if (why === undefined || gateway?.className !== OWN_WAYPOINT_CLASS) return NOTHING;
  const message = `istio.io/use-waypoint names waypoint ${namespace}/${name}, which istiod does not use (${why}): nothing is sent to it for this service`;
  return { ...NOTHING, issues: [warning(refOf(se), 'metadata.labels', message)] };
}

/** The translation of one service. */
export function translateService(inputs: TranslateInputs, se: ServiceEntry): ServiceTranslation {
  const { namespace, name, labels } = se.metadata;
  const { ambient } = inputs;
  const service = { kind: se.kind, namespace, name, labels };
  const binding = waypointOf(service, ambient.ambientNamespace(namespace), ambient.waypoints());
  if (!binding.bound || binding.gateway.className !== OWN_WAYPOINT_CLASS) {
    return unusedBinding(inputs, se, binding);
  }
  const gateway = gatewayKey(binding.gateway.namespace, binding.gateway.name);
  if (se.spec.hosts.some((h) => inputs.view.isHostHeld(h, namespace))) {
    const issues = [heldIssue(se, holdersOf(inputs.view, se))];
    return { gateway, contribution: undefined, issues, uncarried: [], keep: true };
  }
  const pass: ServicePass = {
    view: inputs.view,
    se,
    waypoint: binding.waypoint,
    image: gatewayImage(binding.gateway, inputs.options),
    extensions: new Map(),
  };
  return { gateway, ...translatePorts(inputs, pass) };
}

interface PortsResult {
  readonly contribution: ServiceContribution | undefined;
  readonly issues: readonly ConfigIssue[];
  readonly uncarried: readonly string[];
  readonly keep: boolean;
}

/** The prefix ranges of the service's addresses, distinct; a warning for each one Envoy cannot match. */
function prefixRanges(se: ServiceEntry, issues: ConfigIssue[]): ProtoJson[] {
  const out = new Map<string, ProtoJson>();
  se.spec.addresses.forEach((address, i) => {
    const range = prefixRange(address);
    if (range !== undefined)
      out.set(`${range['address_prefix'] as string}/${range['prefix_len'] as number}`, range);
    else
      issues.push(
        warning(
          refOf(se),
          `spec.addresses[${i}]`,
          `"${address}" is no IP address or CIDR: not matched on the waypoint`,
        ),
      );
  });
  return [...out.values()];
}

/** Why a port gets no chain before its generator is asked, or undefined. */
function refusal(
  se: ServiceEntry,
  port: ServicePort,
  generator: Generator | undefined,
  addressed: boolean,
): string | undefined {
  if (generator === undefined) {
    return 'no protocol this waypoint proxies (a port name such as tcp-dubbo): its connections are dropped';
  }
  if (istioProtocolOf(se, port) === 'UDP') return 'UDP: ztunnel sends a waypoint TCP only';
  if (generator.generateOwnWaypoint === undefined)
    return `the ${generator.name} plugin has no chain for our waypoint`;
  return addressed ? undefined : 'the service has no address ztunnel could send to';
}

function translatePorts(inputs: TranslateInputs, pass: ServicePass): PortsResult {
  const { se } = pass;
  const issues: ConfigIssue[] = [];
  const uncarried: string[] = [];
  const ranges = prefixRanges(se, issues);
  const chains: ProtoJson[] = [];
  const resources = new Map<string, XdsResource>();
  const clusters = new Map<string, { request: ClusterRequest; path: string }>();
  let keep = false;
  for (const [i, port] of se.spec.ports.entries()) {
    const why = (text: string) =>
      `${se.kind} ${se.metadata.namespace}/${se.metadata.name} port ${port.name} (${port.number}): ${text}`;
    const protocol = protocolSegment(port.name);
    const generator = protocol === undefined ? undefined : inputs.byProtocol.get(protocol);
    const refused = refusal(se, port, generator, ranges.length > 0);
    if (refused !== undefined || protocol === undefined || generator === undefined) {
      uncarried.push(why(refused ?? ''));
      continue;
    }
    const { ctx, clusters: named } = ownWaypointContext(pass, generator, protocol, i);
    const result = guarded(refOf(se), generator, () => generator.generateOwnWaypoint?.(ctx) ?? ok(undefined));
    issues.push(...result.issues);
    if (!result.ok) {
      keep = true;
      continue;
    }
    if (result.value === undefined) {
      const warned = result.issues.find((x) => x.severity === 'warning')?.message;
      uncarried.push(
        why(warned ?? `the ${generator.name} plugin cannot carry it on image ${pass.image.ref}`),
      );
      continue;
    }
    chains.push(serviceChain(ctx.host, port.number, ranges, result.value.filters));
    for (const r of result.value.routes ?? []) resources.set(`${r.typeUrl} ${r.name}`, r);
    for (const [n, request] of named)
      if (!clusters.has(n)) clusters.set(n, { request, path: `spec.ports[${i}]` });
  }
  for (const { request, path } of clusters.values()) {
    const target = clusterTarget(inputs, se, request);
    for (const r of clusterResources(request, target, inputs.endpoints, { service: se, path, issues })) {
      resources.set(`${r.typeUrl} ${r.name}`, r);
    }
  }
  const sorted = [...resources.keys()].sort(compareStrings).map((k) => resources.get(k) as XdsResource);
  const contribution = chains.length > 0 || sorted.length > 0 ? { chains, resources: sorted } : undefined;
  return { contribution, issues, uncarried, keep };
}

function clusterTarget(inputs: TranslateInputs, se: ServiceEntry, request: ClusterRequest) {
  const ns = se.metadata.namespace;
  const own = se.spec.hosts.includes(request.host);
  const service = own ? se : inputs.serviceOfHost(request.host, ns);
  const ruleNs = service?.metadata.namespace ?? ns;
  return { service, destinationRule: inputs.view.configForHost(request.host, ruleNs).destinationRule };
}
