// Encodes Istio config as istiod's `api` generator does: each object an Any of istio.mcp.v1alpha1.Resource with
// metadata.name "<ns>/<name>", version = resourceVersion, labels, annotations, create_time, and body = Any of
// the spec proto (istio pkg/config/conversion.go PilotConfigToResource).
import type { IstioConfig } from '../../../src/model/objects.ts';
import {
  BODY_TYPE_PREFIX,
  MCP_RESOURCE_TYPE_URL,
  type McpProtos,
} from '../../../src/controller/mcp/protos.ts';

export interface AnyBytes {
  readonly type_url: string;
  readonly value: Uint8Array;
}

/** One config as the fake serves it; `spec` uses the proto3 JSON field names (lowerCamelCase, enum names). */
export interface FakeResource {
  readonly kind: IstioConfig['kind'];
  readonly namespace: string;
  readonly name: string;
  readonly version?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** Unix seconds. */
  readonly createTime?: number;
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

export function encodeBody(protos: McpProtos, kind: string, spec: unknown): Uint8Array {
  const type = protos.bodies.get(BODY_TYPE_PREFIX + kind);
  if (!type) throw new Error(`no body type for ${kind}`);
  return type.encode(type.fromObject(spec as Record<string, unknown>)).finish();
}

export function encodeResource(protos: McpProtos, r: FakeResource): AnyBytes {
  const body = { type_url: BODY_TYPE_PREFIX + r.kind, value: encodeBody(protos, r.kind, r.spec) };
  return encodeResourceWithBody(protos, r, body);
}

/** A Resource whose body is given as is (to serve a body of the wrong type or with garbage bytes). */
export function encodeResourceWithBody(
  protos: McpProtos,
  r: Omit<FakeResource, 'spec'>,
  body: AnyBytes,
): AnyBytes {
  const msg = protos.Resource.fromObject({
    metadata: {
      name: `${r.namespace}/${r.name}`,
      version: r.version ?? '',
      labels: { ...r.labels },
      annotations: { ...r.annotations },
      ...(r.createTime !== undefined ? { createTime: { seconds: r.createTime, nanos: 0 } } : {}),
    },
  }) as unknown as { body?: unknown };
  msg.body = protos.Any.create(body);
  return { type_url: MCP_RESOURCE_TYPE_URL, value: protos.Resource.encode(msg).finish() };
}

/** Bytes that are not a valid protobuf message (a truncated length-delimited field). */
export const GARBAGE = Uint8Array.from([0x0a, 0xff, 0xff, 0x01, 0x02]);
