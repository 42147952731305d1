// Encodes Istio config as istiod's `api` generator does: each object an Any of istio.mcp.v1alpha1.Resource with
// metadata.name "<ns>/<name>", version = resourceVersion, labels, annotations, create_time, and body = Any of
// the spec proto. The encoding itself is the registry's MCP server's (src/registry/mcp/resource.ts).
import type { IstioConfig } from '../../../src/model/objects.ts';
import type { McpProtos } from '../../../src/kit/mcp-protos.ts';
import {
  encodeMcpResource,
  encodeSpecResource,
  type AnyBytes,
  type McpResourceMeta,
} from '../../../src/registry/mcp/resource.ts';

export type { AnyBytes } from '../../../src/registry/mcp/resource.ts';

/** One config as the fake serves it; `spec` uses the proto3 JSON field names (lowerCamelCase, enum names). */
export interface FakeResource extends McpResourceMeta {
  readonly kind: IstioConfig['kind'];
  readonly spec: unknown;
}

export function fromConfig(obj: IstioConfig): FakeResource {
  const ts = Date.parse(obj.metadata.creationTimestamp);
  return {
    kind: obj.kind,
    namespace: obj.metadata.namespace,
    name: obj.metadata.name,
    version: obj.metadata.resourceVersion,
    labels: obj.metadata.labels,
    annotations: obj.metadata.annotations,
    ...(Number.isNaN(ts) ? {} : { createTime: Math.floor(ts / 1000) }),
    spec: obj.spec,
  };
}

export function encodeResource(protos: McpProtos, r: FakeResource): AnyBytes {
  return encodeSpecResource(protos, r.kind, r, r.spec);
}

/** A Resource whose body is given as is (to serve a body of the wrong type or with garbage bytes). */
export function encodeResourceWithBody(
  protos: McpProtos,
  r: Omit<FakeResource, 'spec'>,
  body: AnyBytes,
): AnyBytes {
  return encodeMcpResource(protos, r, body);
}

/** Bytes that are not a valid protobuf message (a truncated length-delimited field). */
export const GARBAGE = Uint8Array.from([0x0a, 0xff, 0xff, 0x01, 0x02]);
