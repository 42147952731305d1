// The fake istiod's config: encoded MCP resources by kind/namespace/name, plus raw extras per kind.
import type { McpProtos } from '../../../src/controller/mcp/protos.ts';
import type { IstioConfig } from '../../../src/model/objects.ts';
import { encodeResource, fromConfig, type AnyBytes, type FakeResource } from './encode.ts';
import type { ServedVersions } from './types.ts';

export class FakeConfig {
  private readonly byKey = new Map<string, AnyBytes>();
  private readonly raw = new Map<string, AnyBytes[]>();

  constructor(private readonly protos: McpProtos) {}

  put(o: IstioConfig | FakeResource): void {
    const r = 'metadata' in o ? fromConfig(o) : o;
    this.byKey.set(`${r.kind}/${r.namespace}/${r.name}`, encodeResource(this.protos, r));
  }

  remove(kind: string, namespace: string, name: string): void {
    this.byKey.delete(`${kind}/${namespace}/${name}`);
  }

  setRaw(kind: string, resources: readonly AnyBytes[]): void {
    this.raw.set(kind, [...resources]);
  }

  /** The resources answered for a type URL: the kind's config if its version is served, else none. */
  resourcesFor(typeUrl: string, serve: ServedVersions): AnyBytes[] {
    const [group, version, kind] = typeUrl.split('/');
    if (group !== 'networking.istio.io' || kind === undefined) return [];
    if (version !== 'v1' && version !== 'v1alpha3') return [];
    if (serve !== 'both' && version !== serve) return [];
    const out: AnyBytes[] = [];
    for (const [k, v] of this.byKey) if (k.startsWith(`${kind}/`)) out.push(v);
    out.push(...(this.raw.get(kind) ?? []));
    return out;
  }
}
