import protobuf from 'protobufjs';
import { ROUTE_CONFIGURATION_TYPE } from '../model/constants.ts';
import { compareStrings } from '../model/order.ts';
import { ownedCopies } from '../util/bytes.ts';
import { sha256Hex } from '../util/json.ts';
import { loadRdsProtos, proto3JsonToObject, type RdsProtos } from './protos.ts';
import { LayeredMap } from './layered-map.ts';
import type { RouteConfigurationJson } from './route-json.ts';

/**
 * One RouteConfiguration, encoded once per content version; the byte buffers are shared by every stream that
 * receives this version. Immutable.
 */
export interface EncodedResource {
  readonly name: string;
  /** Hex content hash (16 characters) of the proto3 JSON. */
  readonly version: string;
  /** The route as built (the route builder's own object, shared: not a copy). */
  readonly json: RouteConfigurationJson;
  /** `DiscoveryResponse.resources` entry: tag 2 + length + Any{type_url, value}. */
  readonly sotwEntry: Buffer;
  /** `DeltaDiscoveryResponse.resources` entry: tag 2 + length + Resource{version, resource: Any, name}. */
  readonly deltaEntry: Buffer;
  /** 64 bits of the hash of `<name>@<version>`: what the resource adds to its snapshot's version (Snapshot.fold). */
  readonly digest: bigint;
}

/**
 * Immutable: every resource by name (in name order), and a version that is a hash of the names and resource
 * versions: the exclusive or of the resources' digests (`fold`), in hex, so a snapshot that differs from the
 * previous one in a few resources gets its version from those few.
 */
export interface Snapshot {
  readonly version: string;
  readonly resources: ReadonlyMap<string, EncodedResource>;
  readonly fold: bigint;
}

export const EMPTY_SNAPSHOT: Snapshot = frozenSnapshot(new Map(), 0n);

/** Counts of encoding work, for metrics and the benchmark. */
export interface EncodeStats {
  resourceEncodes: number;
  resourceBytes: number;
}

function lengthDelimited(fieldNumber: number, bytes: Uint8Array): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32((fieldNumber << 3) | 2).bytes(bytes);
  return w.finish();
}

/**
 * The content version of a route: the hash of its JSON text (the builder emits keys in a fixed order, so equal
 * content gives equal text). The text itself is not held: a resource's version says whether new content is its own.
 */
export function contentVersion(json: RouteConfigurationJson): string {
  return sha256Hex(JSON.stringify(json)).slice(0, 16);
}

export function encodeResource(
  json: RouteConfigurationJson,
  version: string = contentVersion(json),
  protos: RdsProtos = loadRdsProtos(),
): EncodedResource {
  const msg = protos.RouteConfiguration.fromObject(
    proto3JsonToObject(protos.RouteConfiguration, json) as Record<string, unknown>,
  );
  const body = protos.RouteConfiguration.encode(msg).finish();
  // protobufjs defines google.protobuf.Any from its bundled JSON, where the field keeps its proto name `type_url`.
  const any = { type_url: ROUTE_CONFIGURATION_TYPE, value: body };
  const anyBytes = protos.Any.encode(protos.Any.fromObject(any)).finish();
  const resourceBytes = protos.Resource.encode(
    protos.Resource.fromObject({ version, resource: any, name: json.name }),
  ).finish();
  // Held as long as this version is served: both entries in one block of their own, not slices of the shared
  // pool (util/bytes.ts).
  const [sotwEntry, deltaEntry] = ownedCopies(
    lengthDelimited(2, anyBytes),
    lengthDelimited(2, resourceBytes),
  );
  return {
    name: json.name,
    version,
    digest: BigInt(`0x${sha256Hex(`${json.name}@${version}`).slice(0, 16)}`),
    json,
    sotwEntry: sotwEntry!,
    deltaEntry: deltaEntry!,
  };
}

/**
 * Builds the next snapshot from a complete set of routes, reusing the encoding of every resource whose content
 * did not change. The `held` names (withheld by the route builder, not in `routes`) keep their previous resource
 * if they had one and stay absent otherwise. Returns the previous snapshot object itself when nothing changed.
 */
export function nextSnapshot(
  previous: Snapshot,
  routes: readonly RouteConfigurationJson[],
  stats?: EncodeStats,
  held: readonly string[] = [],
): { snapshot: Snapshot; changed: string[] } {
  const resources = new Map<string, EncodedResource>();
  const changed: string[] = [];
  for (const name of held) {
    const old = previous.resources.get(name);
    if (old !== undefined) resources.set(name, old);
  }
  for (const json of [...routes].sort((a, b) => compareStrings(a.name, b.name))) {
    // Unchanged content is recognised by its version (no encoding); only changes are encoded.
    const version = contentVersion(json);
    const old = previous.resources.get(json.name);
    if (old !== undefined && old.version === version) {
      resources.set(json.name, old);
      continue;
    }
    const enc = encodeResource(json, version);
    if (stats) {
      stats.resourceEncodes++;
      stats.resourceBytes += enc.sotwEntry.length + enc.deltaEntry.length;
    }
    resources.set(json.name, enc);
    changed.push(json.name);
  }
  for (const name of previous.resources.keys()) if (!resources.has(name)) changed.push(name);
  if (changed.length === 0) return { snapshot: previous, changed };
  // Kept (held) resources went in first: restore name order so equal content gives an equal snapshot.
  const ordered =
    held.length > 0 ? new Map([...resources].sort(([a], [b]) => compareStrings(a, b))) : resources;
  let fold = 0n;
  for (const r of ordered.values()) fold ^= r.digest;
  return { snapshot: frozenSnapshot(ordered, fold), changed: changed.sort() };
}

/** A snapshot of resources in name order whose digests fold to `fold`. */
function frozenSnapshot(resources: ReadonlyMap<string, EncodedResource>, fold: bigint): Snapshot {
  return Object.freeze({ version: fold.toString(16).padStart(16, '0'), resources, fold });
}

/** What changed since a snapshot, as an incremental route builder knows it (IncrementalRoutes). */
export interface RouteChanges {
  /** The names whose content or held state may have changed, sorted, unique; every other name is unchanged. */
  readonly names: readonly string[];
  /** The content to serve under `name`, or undefined when no route has that name now. */
  route(name: string): RouteConfigurationJson | undefined;
  /** True when `name` is withheld (its previous resource, if any, is kept). */
  isHeld(name: string): boolean;
}

/**
 * The snapshot nextSnapshot would build from the complete routes, built from `previous` and only the names that
 * changed: unchanged resources are shared, only changed content is hashed and encoded.
 */
export function patchSnapshot(
  previous: Snapshot,
  changes: RouteChanges,
  stats?: EncodeStats,
): { snapshot: Snapshot; changed: string[] } {
  const updates = new Map<string, EncodedResource | undefined>();
  for (const name of changes.names) {
    const json = changes.route(name);
    const old = previous.resources.get(name);
    if (json === undefined) {
      if (old !== undefined && !changes.isHeld(name)) updates.set(name, undefined);
      continue;
    }
    const version = contentVersion(json);
    if (old !== undefined && old.version === version) continue;
    const enc = encodeResource(json, version);
    if (stats) {
      stats.resourceEncodes++;
      stats.resourceBytes += enc.sotwEntry.length + enc.deltaEntry.length;
    }
    updates.set(name, enc);
  }
  if (updates.size === 0) return { snapshot: previous, changed: [] };
  let fold = previous.fold;
  for (const [name, r] of updates) {
    fold ^= (previous.resources.get(name)?.digest ?? 0n) ^ (r?.digest ?? 0n);
  }
  const resources = LayeredMap.of(previous.resources).with(updates);
  return { snapshot: frozenSnapshot(resources, fold), changed: [...updates.keys()] };
}

/** Something that wants to hear about changes to the resources it watches. */
export interface ResourceWatcher {
  /** Called once per snapshot change with the watched names that changed (added, modified or removed), sorted. */
  onResourcesChanged(snapshot: Snapshot, changed: readonly string[]): void;
}

/**
 * The current snapshot plus an index from resource name to its watchers, so a change to one route reaches only
 * the streams subscribed to it (O(changed × subscribers), not O(streams)).
 */
export class SnapshotCache {
  private current: Snapshot = EMPTY_SNAPSHOT;
  private readonly watchers = new Map<string, Set<ResourceWatcher>>();
  readonly stats: EncodeStats = { resourceEncodes: 0, resourceBytes: 0 };

  snapshot(): Snapshot {
    return this.current;
  }

  /**
   * Replaces the whole resource set, except that `held` names keep their current resource (or stay absent);
   * notifies the watchers of changed names. Returns the changed names.
   */
  setRoutes(routes: readonly RouteConfigurationJson[], held: readonly string[] = []): string[] {
    return this.publish(nextSnapshot(this.current, routes, this.stats, held));
  }

  /** As setRoutes, from only what changed since the routes last given (patchSnapshot). */
  patchRoutes(changes: RouteChanges): string[] {
    return this.publish(patchSnapshot(this.current, changes, this.stats));
  }

  private publish({ snapshot, changed }: { snapshot: Snapshot; changed: string[] }): string[] {
    if (snapshot === this.current) return [];
    this.current = snapshot;
    const byWatcher = new Map<ResourceWatcher, string[]>();
    for (const name of changed) {
      for (const w of this.watchers.get(name) ?? []) {
        const list = byWatcher.get(w);
        if (list) list.push(name);
        else byWatcher.set(w, [name]);
      }
    }
    for (const [w, names] of byWatcher) w.onResourcesChanged(snapshot, names);
    return changed;
  }

  watch(name: string, w: ResourceWatcher): void {
    let set = this.watchers.get(name);
    if (!set) this.watchers.set(name, (set = new Set()));
    set.add(w);
  }

  unwatch(name: string, w: ResourceWatcher): void {
    const set = this.watchers.get(name);
    if (!set) return;
    set.delete(w);
    if (set.size === 0) this.watchers.delete(name);
  }

  /** Names with at least one watcher. */
  get watchedNameCount(): number {
    return this.watchers.size;
  }

  watcherCount(name: string): number {
    return this.watchers.get(name)?.size ?? 0;
  }
}
