// The fake istiod's config: encoded MCP resources by kind and namespace/name, plus raw extras per kind. Each
// kind's answer is kept encoded (the `resources` fields of a DiscoveryResponse) until the kind changes, as
// istiod caches what it pushes: a push of 10,000 unchanged resources costs a copy, not an encoding.
import protobuf from 'protobufjs';
import type { McpProtos } from '../../../src/controller/mcp/protos.ts';
import type { IstioConfig } from '../../../src/model/objects.ts';
import { encodeResource, fromConfig, type AnyBytes, type FakeResource } from './encode.ts';
import type { ServedVersions } from './types.ts';

const EMPTY = new Uint8Array();
const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';

export class FakeConfig {
  private readonly byKind = new Map<string, Map<string, AnyBytes>>();
  private readonly raw = new Map<string, AnyBytes[]>();
  private readonly encoded = new Map<string, Uint8Array>();

  constructor(private readonly protos: McpProtos) {}

  put(o: IstioConfig | FakeResource): void {
    const r = 'metadata' in o ? fromConfig(o) : o;
    let m = this.byKind.get(r.kind);
    if (!m) this.byKind.set(r.kind, (m = new Map()));
    m.set(`${r.namespace}/${r.name}`, encodeResource(this.protos, r));
    this.encoded.delete(r.kind);
  }

  remove(kind: string, namespace: string, name: string): void {
    this.byKind.get(kind)?.delete(`${namespace}/${name}`);
    this.encoded.delete(kind);
  }

  setRaw(kind: string, resources: readonly AnyBytes[]): void {
    this.raw.set(kind, [...resources]);
    this.encoded.delete(kind);
  }

  /** The resources answered for a type URL: the kind's config if its version is served, else none. */
  resourcesFor(typeUrl: string, serve: ServedVersions): AnyBytes[] {
    const kind = servedKind(typeUrl, serve);
    if (kind === undefined) return [];
    return [...(this.byKind.get(kind)?.values() ?? []), ...(this.raw.get(kind) ?? [])];
  }

  /** `resourcesFor` encoded as the `resources` fields (2) of a DiscoveryResponse. */
  encodedFor(typeUrl: string, serve: ServedVersions): Uint8Array {
    const kind = servedKind(typeUrl, serve);
    if (kind === undefined) return EMPTY;
    let bytes = this.encoded.get(kind);
    if (bytes === undefined) {
      bytes = Buffer.concat(this.resourcesFor(typeUrl, serve).map(resourceField));
      this.encoded.set(kind, bytes);
    }
    return bytes;
  }
}

const fields = new WeakMap<AnyBytes, Uint8Array>();

/** One resource as a `resources` field of a DiscoveryResponse, encoded once. */
function resourceField(any: AnyBytes): Uint8Array {
  let f = fields.get(any);
  if (f === undefined) {
    const w = protobuf.Writer.create();
    w.uint32(18).fork();
    w.uint32(10).string(any.type_url);
    w.uint32(18).bytes(any.value);
    w.ldelim();
    f = w.finish();
    fields.set(any, f);
  }
  return f;
}

/**
 * The kind of a `networking.istio.io/<version>/<Kind>` type URL whose version is served, else undefined; a
 * `gateway.networking.k8s.io/v1/<Kind>` type URL (istiod's `api` generator serves the Gateway API kinds too) is
 * kind `gateway.networking.k8s.io/<Kind>`, filled with setRaw.
 */
function servedKind(typeUrl: string, serve: ServedVersions): string | undefined {
  const [group, version, kind] = typeUrl.split('/');
  if (group === GATEWAY_API_GROUP && version === 'v1' && kind !== undefined)
    return `${GATEWAY_API_GROUP}/${kind}`;
  if (group !== 'networking.istio.io' || kind === undefined) return undefined;
  if (version !== 'v1' && version !== 'v1alpha3') return undefined;
  if (serve !== 'both' && version !== serve) return undefined;
  return kind;
}
