/**
 * Gateway API Gateways and GatewayClasses over MCP (McpClient `ambient`). istiod's `api` generator answers any
 * `<group>/<version>/<Kind>` type URL from its config store (istio/istio pilot/pkg/networking/apigen/apigen.go
 * APIGenerator.Generate @86c9f01f), and the Gateway API kinds are in that store (pkg/config/schema/collections
 * collections.gen.go pilotGatewayAPI: KubernetesGateway, GatewayClass). The type URLs are gvk.KubernetesGateway and
 * gvk.GatewayClass as GroupVersionKind.String() writes them (pkg/config/schema/gvk/resources.gen.go,
 * pkg/config/model.go): `gateway.networking.k8s.io/v1/Gateway` and `gateway.networking.k8s.io/v1/GatewayClass`.
 *
 * Each resource is an istio.mcp.v1alpha1.Resource (config.PilotConfigToResource, pkg/config/conversion.go): name
 * `<namespace>/<name>` (`/<name>` for the cluster-scoped GatewayClass), labels, annotations, and a body that is the
 * spec only, as a `google.protobuf.Struct` (config.ToProto: a spec that is not a proto message is its JSON in a
 * Struct). **No status is sent**: whether a Gateway has `status.addresses` cannot be known over MCP, so a Gateway
 * read here counts as addressed (model/parse/ambient.ts `statusKnown: false`): a filter written for a waypoint not
 * ready yet takes effect once its pods are.
 *
 * Namespaces are not served over MCP (istiod has no Namespace collection in its config store): in `mcp` mode the
 * Kubernetes source reads them (controller/kube/ambient.ts).
 */
import protobuf from 'protobufjs';
import { parseAmbientObject, type AmbientKind } from '../../model/parse/ambient.ts';
import type { ConfigIssue } from '../../model/result.ts';
import { ambientKey, type AmbientWrites } from '../store-ambient.ts';
import { inRevision, type AnyMessage } from './decode.ts';
import { MCP_RESOURCE_TYPE_URL } from './protos.ts';
import { decodeResourceMessage } from './resource-decode.ts';

export interface AmbientTypeUrl {
  readonly url: string;
  readonly kind: AmbientKind;
  /** The object's `kind` and `apiVersion` as the parser reads them. */
  readonly typeKind: 'Gateway' | 'GatewayClass';
  readonly apiVersion: string;
}

const GATEWAY_API_V1 = 'gateway.networking.k8s.io/v1';

/** The type URLs subscribed to for ambient inputs, in request order. */
export const AMBIENT_TYPE_URLS: readonly AmbientTypeUrl[] = [
  {
    url: `${GATEWAY_API_V1}/Gateway`,
    kind: 'KubernetesGateway',
    typeKind: 'Gateway',
    apiVersion: GATEWAY_API_V1,
  },
  {
    url: `${GATEWAY_API_V1}/GatewayClass`,
    kind: 'GatewayClass',
    typeKind: 'GatewayClass',
    apiVersion: GATEWAY_API_V1,
  },
];

export const STRUCT_TYPE_URL = 'type.googleapis.com/google.protobuf.Struct';

let structType: protobuf.Type | undefined;

/** google.protobuf.Struct, from protobufjs' bundled well-known types. */
export function structProto(): protobuf.Type {
  structType ??= protobuf.Root.fromJSON(protobuf.common.get('google/protobuf/struct.proto')!).lookupType(
    'google.protobuf.Struct',
  );
  return structType;
}

interface ValueMessage {
  readonly nullValue?: unknown;
  readonly numberValue?: number;
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  readonly structValue?: { readonly fields?: Record<string, ValueMessage> };
  readonly listValue?: { readonly values?: readonly ValueMessage[] };
}

function valueToJson(v: ValueMessage): unknown {
  if (v.structValue !== undefined) return fieldsToJson(v.structValue.fields);
  if (v.listValue !== undefined) return (v.listValue.values ?? []).map(valueToJson);
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.numberValue !== undefined) return v.numberValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return null;
}

function fieldsToJson(fields: Record<string, ValueMessage> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields ?? {})) out[k] = valueToJson(v);
  return out;
}

/** A google.protobuf.Struct's bytes as the JSON object it holds. Throws on malformed bytes. */
export function structToJson(bytes: Uint8Array): Record<string, unknown> {
  const t = structProto();
  const msg = t.toObject(t.decode(bytes)) as { fields?: Record<string, ValueMessage> };
  return fieldsToJson(msg.fields);
}

/** What became of one answer. */
export interface AmbientAnswer {
  readonly valid: number;
  readonly invalid: number;
  readonly undecodable: number;
  readonly reasons: readonly string[];
  readonly issues: readonly ConfigIssue[];
}

/**
 * Applies one full answer of `type` to `target`: the objects read replace the kind; an invalid one keeps its last
 * valid version; an undecodable one (wrong type, bad bytes, a name not `<ns>/<name>`) is counted (the client NACKs)
 * and, when its name could be read, keeps its last valid version too.
 */
export function applyAmbientAnswer(
  target: AmbientWrites,
  type: AmbientTypeUrl,
  resources: readonly AnyMessage[],
  revision: string,
): AmbientAnswer {
  const objects = [];
  const keep = new Set<string>();
  const reasons: string[] = [];
  const issues: ConfigIssue[] = [];
  let invalid = 0;
  for (const any of resources) {
    const one = readOne(type, any, revision);
    if ('reason' in one) {
      reasons.push(one.reason);
      if (one.key !== undefined) keep.add(one.key);
      continue;
    }
    if (one.skipped) continue;
    const res = parseAmbientObject(one.raw, { statusKnown: false });
    if (res === undefined) continue;
    issues.push(...res.issues);
    if (res.ok) objects.push(res.value);
    else {
      invalid++;
      keep.add(one.key);
    }
  }
  target.replace(type.kind, objects, keep);
  return { valid: objects.length, invalid, undecodable: reasons.length, reasons, issues };
}

type One =
  | { readonly raw: Record<string, unknown>; readonly key: string; readonly skipped: boolean }
  | { readonly reason: string; readonly key?: string };

function readOne(type: AmbientTypeUrl, any: AnyMessage, revision: string): One {
  if (any.type_url !== MCP_RESOURCE_TYPE_URL) {
    return { reason: `unexpected resource type ${JSON.stringify(any.type_url ?? '')}` };
  }
  let res;
  try {
    res = decodeResourceMessage(any.value ?? new Uint8Array());
  } catch (err) {
    return { reason: `cannot decode istio.mcp.v1alpha1.Resource: ${(err as Error).message}` };
  }
  const slash = res.name.indexOf('/');
  const namespace = res.name.slice(0, slash);
  const name = res.name.slice(slash + 1);
  const namespaced = type.kind === 'KubernetesGateway';
  if (slash < 0 || name === '' || name.includes('/') || namespaced === (namespace === '')) {
    return {
      reason: `metadata.name ${JSON.stringify(res.name)} is not ${namespaced ? '<namespace>/<name>' : '/<name>'}`,
    };
  }
  const key = ambientKey(type.kind, namespace, name);
  const bodyType = res.body?.type_url ?? '';
  if (bodyType !== STRUCT_TYPE_URL) {
    return { reason: `${res.name}: body type ${JSON.stringify(bodyType)}, want ${STRUCT_TYPE_URL}`, key };
  }
  let spec: Record<string, unknown>;
  try {
    spec = structToJson(res.body!.value);
  } catch (err) {
    return { reason: `${res.name}: cannot decode ${STRUCT_TYPE_URL}: ${(err as Error).message}`, key };
  }
  const raw = {
    apiVersion: type.apiVersion,
    kind: type.typeKind,
    metadata: {
      name,
      ...(namespaced ? { namespace } : {}),
      labels: res.labels,
      annotations: res.annotations,
      resourceVersion: res.version,
    },
    ...(type.kind === 'KubernetesGateway' ? { spec } : {}),
  };
  return { raw, key, skipped: !inRevision(res.labels, revision) };
}
