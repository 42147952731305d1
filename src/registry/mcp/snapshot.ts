// The complete ServiceEntry set the MCP server serves, encoded once per update.
import protobuf from 'protobufjs';
import type { McpProtos } from '../../model/mcp-protos.ts';
import { compareByName } from '../../model/order.ts';
import { contentHash, sha256Hex } from '../../util/json.ts';
import type { RegistryServiceEntry } from '../types.ts';
import { encodeSpecResource } from './resource.ts';

/** The ServiceEntry type URLs answered with the set: istiod >= 1.24 asks for v1, older ones for v1alpha3. */
export const SERVICE_ENTRY_TYPE_URLS: ReadonlySet<string> = new Set([
  'networking.istio.io/v1/ServiceEntry',
  'networking.istio.io/v1alpha3/ServiceEntry',
]);

/**
 * An immutable answer: `version` is a hash of the content (equal sets, equal versions), `resources` the repeated
 * `DiscoveryResponse.resources` field (number 2) already encoded, to be appended to each response's header.
 */
export interface McpSnapshot {
  readonly version: string;
  readonly count: number;
  readonly resources: Uint8Array;
}

export const EMPTY_SNAPSHOT: McpSnapshot = {
  version: 'empty',
  count: 0,
  resources: new Uint8Array(0),
};

/** The resource version of one entry: a short content hash (the MCP client skips unchanged versions). */
export function entryVersion(entry: RegistryServiceEntry): string {
  return contentHash(entry).slice(0, 16);
}

/** Encodes the set, ordered by namespace/name (deterministic bytes whatever the input order). */
export function buildSnapshot(protos: McpProtos, entries: readonly RegistryServiceEntry[]): McpSnapshot {
  if (entries.length === 0) return EMPTY_SNAPSHOT;
  const sorted = [...entries].sort(compareByName);
  const writer = protobuf.Writer.create();
  const versions: string[] = [];
  for (const e of sorted) {
    const version = entryVersion(e);
    versions.push(`${key(e)}@${version}`);
    const any = encodeSpecResource(
      protos,
      'ServiceEntry',
      {
        namespace: e.metadata.namespace,
        name: e.metadata.name,
        version,
        labels: e.metadata.labels,
        annotations: e.metadata.annotations,
      },
      e.spec,
    );
    writer.uint32(18).fork();
    writer.uint32(10).string(any.type_url);
    writer.uint32(18).bytes(any.value);
    writer.ldelim();
  }
  return {
    version: sha256Hex(versions.join('\n')).slice(0, 16),
    count: sorted.length,
    resources: writer.finish(),
  };
}

function key(e: RegistryServiceEntry): string {
  return `${e.metadata.namespace}/${e.metadata.name}`;
}
