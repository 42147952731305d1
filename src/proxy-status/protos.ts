import type protobuf from 'protobufjs';
import { envoyProtoDirs, loadProtoRoot } from '../util/protos.ts';

/**
 * istiod's proxy status as a debug xDS type (docs/wire-formats.md "istio.io/debug/syncz"): a DiscoveryRequest
 * with this type URL is answered with one DiscoveryResponse whose resources are Anys of
 * `envoy.service.status.v3.ClientConfig`, one per connected proxy.
 */
export const SYNCZ_TYPE_URL = 'istio.io/debug/syncz';
/** Every istiod debug type starts with this; istiod keeps no watch for them and answers each request once. */
export const DEBUG_TYPE_PREFIX = 'istio.io/debug/';
/**
 * The other form of the question (docs/wire-formats.md "istio.io/debug"): type `istio.io/debug` with the one
 * resource name `syncz`, answered by istiod's DebugGen with one resource whose Any (type_url `istio.io/debug`)
 * holds the JSON of its HTTP `/debug/syncz`; newer releases keep each type's last NACK message there
 * (`resources[<type>].lastError`). Only to a verified identity of the system namespace (TLS).
 */
export const DEBUG_TYPE_URL = 'istio.io/debug';
export const DEBUG_SYNCZ_RESOURCE = 'syncz';
export const CLIENT_CONFIG_TYPE_URL = 'type.googleapis.com/envoy.service.status.v3.ClientConfig';
export const LISTENER_TYPE_URL = 'type.googleapis.com/envoy.config.listener.v3.Listener';

export interface SynczProtos {
  readonly root: protobuf.Root;
  readonly ClientConfig: protobuf.Type;
}

let cached: SynczProtos | undefined;

/** Loads (once per process) the CSDS protos from the Envoy API shipped in `@grpc/grpc-js-xds` (deps/). */
export function loadSynczProtos(): SynczProtos {
  if (cached) return cached;
  const root = loadProtoRoot(['envoy/service/status/v3/csds.proto'], envoyProtoDirs());
  cached = { root, ClientConfig: root.lookupType('envoy.service.status.v3.ClientConfig') };
  return cached;
}
