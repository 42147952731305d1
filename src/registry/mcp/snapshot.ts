// The complete ServiceEntry set the MCP server serves, encoded once per update.
import protobuf from 'protobufjs';
import type { McpProtos } from '../../kit/mcp-protos.ts';
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

/** One entry encoded as a `resources` field (an Any of its MCP Resource), with its version. */
interface EncodedEntry {
  readonly version: string;
  readonly field: Uint8Array;
}

/**
 * Encodings of entries by object identity: an update that passes the unchanged entries' objects again re-encodes
 * only the new ones (entries are immutable). Owned by one server.
 */
export type EncodingCache = WeakMap<RegistryServiceEntry, EncodedEntry>;

/** Encodes the set, ordered by namespace/name (deterministic bytes whatever the input order). */
export function buildSnapshot(
  protos: McpProtos,
  entries: readonly RegistryServiceEntry[],
  cache: EncodingCache = new WeakMap(),
): McpSnapshot {
  if (entries.length === 0) return EMPTY_SNAPSHOT;
  const sorted = [...entries].sort(compareByName);
  const fields: Uint8Array[] = [];
  const versions: string[] = [];
  for (const e of sorted) {
    let encoded = cache.get(e);
    if (!encoded) {
      encoded = encodeEntry(protos, e);
      cache.set(e, encoded);
    }
    versions.push(`${key(e)}@${encoded.version}`);
    fields.push(encoded.field);
  }
  return {
    version: sha256Hex(versions.join('\n')).slice(0, 16),
    count: sorted.length,
    resources: Buffer.concat(fields),
  };
}

function encodeEntry(protos: McpProtos, e: RegistryServiceEntry): EncodedEntry {
  const version = entryVersion(e);
  const meta = {
    namespace: e.metadata.namespace,
    name: e.metadata.name,
    version,
    labels: e.metadata.labels,
    annotations: e.metadata.annotations,
  };
  const any = encodeSpecResource(protos, 'ServiceEntry', meta, e.spec);
  const writer = protobuf.Writer.create();
  writer.uint32(18).fork();
  writer.uint32(10).string(any.type_url);
  writer.uint32(18).bytes(any.value);
  writer.ldelim();
  return { version, field: writer.finish() };
}

function key(e: RegistryServiceEntry): string {
  return `${e.metadata.namespace}/${e.metadata.name}`;
}
