// Encodes Istio config as istiod's `api` generator serves it over MCP (istio pkg/config/conversion.go
// PilotConfigToResource): an Any of istio.mcp.v1alpha1.Resource whose metadata.name is "<ns>/<name>" and whose body
// is an Any of the spec proto (type.googleapis.com/istio.networking.v1alpha3.<Kind>). spec/wire-formats.md §1.5.
import { BODY_TYPE_PREFIX, MCP_RESOURCE_TYPE_URL, type McpProtos } from '../../kit/mcp-protos.ts';
import { sortKeys } from '../../util/json.ts';

/** A google.protobuf.Any with its value already encoded. */
export interface AnyBytes {
  readonly type_url: string;
  readonly value: Uint8Array;
}

/** The istio.mcp.v1alpha1.Metadata of one resource. */
export interface McpResourceMeta {
  readonly namespace: string;
  readonly name: string;
  /** Opaque; istiod sends the Kubernetes resourceVersion, clients compare it to skip unchanged objects. */
  readonly version?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** Unix seconds. */
  readonly createTime?: number;
}

/**
 * The proto bytes of a spec given in proto3 JSON field names (lowerCamelCase, enums by name), e.g. a ServiceEntry
 * spec with `endpoints[].serviceAccount`. Map keys are sorted first, so equal specs give equal bytes. Throws for a
 * kind without a body type (a bug) or a value protobufjs cannot convert.
 */
export function encodeBody(protos: McpProtos, kind: string, spec: unknown): Uint8Array {
  const type = protos.bodies.get(BODY_TYPE_PREFIX + kind);
  if (!type) throw new Error(`no body type for ${kind}`);
  return type.encode(type.fromObject(sortKeys(spec) as Record<string, unknown>)).finish();
}

/** An Any of istio.mcp.v1alpha1.Resource wrapping `body` as given. */
export function encodeMcpResource(protos: McpProtos, meta: McpResourceMeta, body: AnyBytes): AnyBytes {
  const msg = protos.Resource.fromObject({
    metadata: {
      name: `${meta.namespace}/${meta.name}`,
      version: meta.version ?? '',
      labels: sortKeys({ ...meta.labels }),
      annotations: sortKeys({ ...meta.annotations }),
      ...(meta.createTime !== undefined ? { createTime: { seconds: meta.createTime, nanos: 0 } } : {}),
    },
  }) as unknown as { body?: unknown };
  msg.body = protos.Any.create(body);
  return { type_url: MCP_RESOURCE_TYPE_URL, value: protos.Resource.encode(msg).finish() };
}

/** An Any of istio.mcp.v1alpha1.Resource whose body is `spec` encoded as `kind`. */
export function encodeSpecResource(
  protos: McpProtos,
  kind: string,
  meta: McpResourceMeta,
  spec: unknown,
): AnyBytes {
  return encodeMcpResource(protos, meta, {
    type_url: BODY_TYPE_PREFIX + kind,
    value: encodeBody(protos, kind, spec),
  });
}
