import type protobuf from 'protobufjs';
import { envoyProtoDirs, loadProtoRoot, projectProtosDir } from '../util/protos.ts';

/**
 * The protobuf types of MCP over xDS (the istiod client in controller/mcp and the registry's ServiceEntry server), loaded by reflection (protobufjs) from the Envoy protos shipped in
 * `@grpc/grpc-js-xds` (deps/) and the Istio protos of this repo (protos/). Field names are lowerCamelCase
 * (protobufjs default), which is the proto3 JSON / Kubernetes JSON naming of Istio specs.
 */
export interface McpProtos {
  readonly root: protobuf.Root;
  readonly DiscoveryRequest: protobuf.Type;
  readonly DiscoveryResponse: protobuf.Type;
  readonly Resource: protobuf.Type;
  readonly Any: protobuf.Type;
  /** Body message types by Any type URL (`type.googleapis.com/istio.networking.v1alpha3.ServiceEntry`, ...). */
  readonly bodies: ReadonlyMap<string, protobuf.Type>;
}

/** The SotW ADS method istiod serves and the registry's MCP server offers. */
export const ADS_METHOD = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';
export const MCP_RESOURCE_TYPE_URL = 'type.googleapis.com/istio.mcp.v1alpha1.Resource';
export const BODY_TYPE_PREFIX = 'type.googleapis.com/istio.networking.v1alpha3.';
const BODY_MESSAGES = ['ServiceEntry', 'VirtualService', 'DestinationRule', 'Gateway'] as const;

const ISTIO_FILES = [
  'istio/mcp/v1alpha1/resource.proto',
  'istio/networking/v1alpha3/service_entry.proto',
  'istio/networking/v1alpha3/virtual_service.proto',
  'istio/networking/v1alpha3/destination_rule.proto',
  'istio/networking/v1alpha3/gateway.proto',
];
const ENVOY_FILES = ['envoy/service/discovery/v3/discovery.proto'];

let cached: McpProtos | undefined;

/** Loads (once per process) and returns the MCP protos. Throws only if the installation is broken. */
export function loadMcpProtos(): McpProtos {
  if (cached) return cached;
  const root = loadProtoRoot([...ENVOY_FILES, ...ISTIO_FILES], [projectProtosDir(), ...envoyProtoDirs()]);
  const bodies = new Map<string, protobuf.Type>();
  for (const m of BODY_MESSAGES) {
    bodies.set(BODY_TYPE_PREFIX + m, root.lookupType(`istio.networking.v1alpha3.${m}`));
  }
  cached = {
    root,
    DiscoveryRequest: root.lookupType('envoy.service.discovery.v3.DiscoveryRequest'),
    DiscoveryResponse: root.lookupType('envoy.service.discovery.v3.DiscoveryResponse'),
    Resource: root.lookupType('istio.mcp.v1alpha1.Resource'),
    Any: root.lookupType('google.protobuf.Any'),
    bodies,
  };
  return cached;
}
