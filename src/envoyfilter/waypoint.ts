/**
 * Waypoint filters (issue 38; docs/ambient-istio.md "What we generate"): each handled port of a Service or
 * ServiceEntry bound to an Istio waypoint (model/ambient/binding.ts waypointOf) gets one EnvoyFilter in the
 * waypoint's namespace, attached by `targetRefs` to the waypoint's Gateway (the only way an EnvoyFilter reaches a
 * waypoint: policyattachment.go ShouldAttachPolicy, docs section 4.3), with one `NETWORK_FILTER` patch per host of
 * the service: context `SIDECAR_INBOUND` (the waypoint's listeners are patched as inbound, listener_builder.go
 * patchListeners, docs 4.2), listener `main_internal`, filter chain `inbound-vip|<port>|tcp|<host>`, filter
 * tcp_proxy, replaced (or preceded) by what the port's generator builds for that chain (Generator.generateWaypoint).
 * Names from istio/istio release-1.30 @b9a2bbd2 (docs/ambient-istio.md section 4).
 *
 * A port whose Istio protocol gives the waypoint no tcp chain (HTTP-like, UDP) gets no filter and a warning; so
 * does a service whose labels name a waypoint istiod does not use. Pure, as the rest of generation.
 */
import { waypointOf, type AmbientService, type WaypointBinding } from '../model/ambient/binding.ts';
import { GATEWAY_API_GROUP } from '../model/ambient/labels.ts';
import { OWN_WAYPOINT_CLASS } from '../model/ambient/own-waypoint.ts';
import {
  istioProtocolOf,
  WAYPOINT_LISTENER,
  waypointChainKinds,
  waypointChainName,
  waypointVipClusterName,
} from '../model/ambient/names.ts';
import type { AmbientView } from '../model/ambient/view.ts';
import { waypointImageOverride, type WaypointGateway } from '../model/ambient/waypoint.ts';
import { TCP_PROXY_FILTER, TYPED_STRUCT_TYPE } from '../model/constants.ts';
import type { Generator, WaypointContext, WaypointFilter } from '../model/generator.ts';
import { outboundClusterName, waypointFilterName } from '../model/names.ts';
import type { EnvoyFilterPatch, OutputObject, ServiceEntry, ServicePort } from '../model/objects.ts';
import { protocolSegment, type Protocol } from '../model/protocol.ts';
import { DEFAULT_META_PROTOCOL_IMAGES, isKnownImage } from '../model/proxy-images.ts';
import { ok, refOf, warning, type ConfigIssue } from '../model/result.ts';
import type { ConfigView } from '../model/view.ts';
import { guarded } from '../model/guarded.ts';
import { placeDraft } from './placement.ts';

/** What generation needs to write waypoint filters (GenerateOptions carries them). */
export interface WaypointOptions {
  /** `--waypoint-envoyfilters`: write waypoint filters. Off (absent) by default. */
  readonly waypointFilters?: boolean;
  /** The Namespaces, Gateways and GatewayClasses read; without it no service is bound to a waypoint. */
  readonly ambient?: AmbientView;
  /**
   * Images known to carry the MetaProtocol proxy, compared by repository (model/proxy-images.ts isKnownImage): the
   * whole list (a flag's images go after DEFAULT_META_PROTOCOL_IMAGES, as cmd/analyze-config.ts does); absent: the
   * default list.
   */
  readonly metaProtocolImages?: readonly string[];
}

export {
  GATEWAY_CLASS_KIND,
  KUBERNETES_GATEWAY_KIND,
  NAMESPACE_KIND,
  recordingAmbientView,
} from '../kit/incremental/ambient.ts';

const UNUSED_BINDING: Partial<Record<string, string>> = {
  'gateway-missing': 'no such Gateway was read',
  'gateway-not-ready': 'the Gateway has no status.addresses yet',
  'attachment-denied': "the Gateway's allowedRoutes do not admit this namespace",
  'not-service-traffic': 'the waypoint does not take service traffic (istio.io/waypoint-for)',
};

/** A warning when the labels name a waypoint istiod does not bind the service to (WaypointIsNotReady, ...). */
function unusedBindingWarning(se: ServiceEntry, binding: WaypointBinding): ConfigIssue | undefined {
  if (binding.bound || binding.waypoint === undefined) return undefined;
  const why = UNUSED_BINDING[binding.reason];
  if (why === undefined) return undefined;
  const { namespace, name } = binding.waypoint;
  const where = binding.source === 'namespace' ? `its namespace's` : 'its';
  const message = `${where} istio.io/use-waypoint names waypoint ${namespace}/${name}, which istiod does not use (${why}): no waypoint filter is generated`;
  return warning(refOf(se), 'metadata.labels', message);
}

/** The NETWORK_FILTER patch of `filter` on the tcp chain of `host:port` of `main_internal`. */
function waypointPatch(host: string, port: number, filter: WaypointFilter): EnvoyFilterPatch {
  const filterChain = { name: waypointChainName('tcp', host, port), filter: { name: TCP_PROXY_FILTER } };
  return {
    applyTo: 'NETWORK_FILTER',
    match: { context: 'SIDECAR_INBOUND', listener: { name: WAYPOINT_LISTENER, filterChain } },
    patch: {
      operation: filter.operation ?? 'REPLACE',
      value: {
        name: filter.filterName,
        typed_config: { '@type': TYPED_STRUCT_TYPE, type_url: filter.typeUrl, value: filter.config },
      },
    },
  };
}

/** The parts of a waypoint pass shared by every port of one service. */
interface ServiceWaypoint {
  readonly view: ConfigView;
  readonly se: ServiceEntry;
  readonly gateway: WaypointGateway;
  readonly proxyImage: string | undefined;
  readonly metaProtocolImage: boolean;
  readonly extensions: Map<Generator, unknown>;
  readonly issues: ConfigIssue[];
}

function extensionOf(sw: ServiceWaypoint, generator: Generator): unknown {
  if (generator.resolveContext === undefined) return undefined;
  if (!sw.extensions.has(generator)) sw.extensions.set(generator, generator.resolveContext(sw.view, sw.se));
  return sw.extensions.get(generator);
}

function contextOf(
  sw: ServiceWaypoint,
  generator: Generator,
  protocol: Protocol,
  portIndex: number,
  host: string,
): WaypointContext {
  const { se, view } = sw;
  const port = se.spec.ports[portIndex] as ServicePort;
  const config = view.configForHost(host, se.metadata.namespace);
  const extension = extensionOf(sw, generator);
  const own = new Set(se.spec.hosts);
  return {
    mode: 'waypoint',
    serviceEntry: se,
    port,
    portIndex,
    protocol,
    host,
    waypoint: { namespace: sw.gateway.namespace, name: sw.gateway.name },
    ...(sw.proxyImage !== undefined ? { proxyImage: sw.proxyImage } : {}),
    metaProtocolImage: sw.metaProtocolImage,
    ...config,
    mesh: view.mesh(),
    codecFor: (applicationProtocol) => view.codecFor(applicationProtocol),
    clusterOf: (subset, to = host, toPort = port.number) =>
      own.has(to)
        ? waypointVipClusterName('tcp', to, toPort, subset)
        : outboundClusterName(toPort, subset, to),
    ...(extension !== undefined ? { extension } : {}),
  };
}

/** The patches of one port (one per host), or undefined when a generator failed (its issues are in sw.issues). */
function portPatches(
  sw: ServiceWaypoint,
  generator: Generator,
  protocol: Protocol,
  portIndex: number,
): EnvoyFilterPatch[] | undefined {
  const { se } = sw;
  const port = se.spec.ports[portIndex] as ServicePort;
  const ref = refOf(se);
  const waypoint = `${sw.gateway.namespace}/${sw.gateway.name}`;
  const path = `spec.ports[${portIndex}].name`;
  const istio = istioProtocolOf(se, port);
  if (!waypointChainKinds(istio).includes('tcp')) {
    const message = `port "${port.name}" is ${istio} to istiod, so waypoint ${waypoint} has no tcp chain for it to patch: no waypoint filter`;
    sw.issues.push(warning(ref, path, message));
    return [];
  }
  if (generator.generateWaypoint === undefined) {
    const message = `the ${generator.name} plugin has no waypoint filter: port "${port.name}" is plain TCP through waypoint ${waypoint}`;
    sw.issues.push(warning(ref, path, message));
    return [];
  }
  const patches: EnvoyFilterPatch[] = [];
  let failed = false;
  for (const host of new Set(se.spec.hosts)) {
    const ctx = contextOf(sw, generator, protocol, portIndex, host);
    const result = guarded(ref, generator, () => generator.generateWaypoint?.(ctx) ?? ok(undefined));
    sw.issues.push(...result.issues);
    if (!result.ok) failed = true;
    else if (result.value !== undefined) patches.push(waypointPatch(host, port.number, result.value));
  }
  return failed ? undefined : patches;
}

/**
 * The waypoint filters of `se` (none unless options.waypointFilters and options.ambient are set and it is bound to
 * a waypoint), placed in the waypoint's namespace with `annotations`; undefined when a generator failed.
 */
export function waypointObjects(
  view: ConfigView,
  byProtocol: ReadonlyMap<Protocol, Generator>,
  options: WaypointOptions,
  se: ServiceEntry,
  annotations: Readonly<Record<string, string>>,
  issues: ConfigIssue[],
): OutputObject[] | undefined {
  const ambient = options.ambient;
  if (options.waypointFilters !== true || ambient === undefined) return [];
  const handled = se.spec.ports.flatMap((port, i) => {
    const protocol = protocolSegment(port.name);
    const generator = protocol === undefined ? undefined : byProtocol.get(protocol);
    return protocol === undefined || generator === undefined ? [] : [{ protocol, generator, i }];
  });
  if (handled.length === 0) return [];
  const { namespace, name, labels } = se.metadata;
  const service: AmbientService = { kind: se.kind, namespace, name, labels };
  const binding = waypointOf(service, ambient.ambientNamespace(namespace), ambient.waypoints());
  if (!binding.bound) {
    const unused = unusedBindingWarning(se, binding);
    if (unused) issues.push(unused);
    return [];
  }
  // Our own waypoint runs stock Envoy programmed over our ADS (src/waypoint/), not by istiod: no EnvoyFilter reaches it.
  if (binding.gateway.className === OWN_WAYPOINT_CLASS) return [];
  const image = waypointImageOverride(binding.gateway);
  const known = options.metaProtocolImages ?? DEFAULT_META_PROTOCOL_IMAGES;
  const sw: ServiceWaypoint = {
    view,
    se,
    gateway: binding.gateway,
    proxyImage: image,
    metaProtocolImage: image !== undefined && isKnownImage(image, known),
    extensions: new Map(),
    issues,
  };
  const targetRefs = [{ group: GATEWAY_API_GROUP, kind: 'Gateway', name: binding.waypoint.name }];
  const objects: OutputObject[] = [];
  let failed = false;
  for (const { protocol, generator, i } of handled) {
    const patches = portPatches(sw, generator, protocol, i);
    if (patches === undefined) failed = true;
    else if (patches.length > 0) {
      const draft = {
        name: waypointFilterName(se.spec.hosts[0] ?? '', se.spec.ports[i]?.number ?? 0),
        spec: { targetRefs, configPatches: patches },
      };
      objects.push(placeDraft(draft, binding.waypoint.namespace, annotations));
    }
  }
  return failed ? undefined : objects;
}
