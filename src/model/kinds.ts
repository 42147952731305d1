/**
 * What a plugin declares about the kinds it reads, beyond its generator: the lookup indexes its context
 * resolution uses. The ConfigStore builds an index the first time it is asked for it (one pass over the objects of
 * its kind) and maintains it on every change afterwards, so every lookup through it is O(1) in the number of
 * objects; incremental generation files a lookup under the index's name and key (kit/incremental/dependencies.ts),
 * so a change of an object under that key regenerates what read it.
 */
import type { ConfigKind, ConfigObject } from './objects.ts';

export type ObjectOfKind<K extends ConfigKind> = Extract<ConfigObject, { kind: K }>;

/**
 * One index over the objects of `kind`: each object filed under every distinct key `keysOf` gives (none: not in
 * the index). Buckets are in namespace/name order. `keysOf` must be a pure function of the object; `name` is
 * unique among all indexes (it names the index in dependency keys).
 */
export interface KindIndex<K extends ConfigKind = ConfigKind> {
  readonly name: string;
  readonly kind: K;
  keysOf(o: ObjectOfKind<K>): readonly string[];
}

/** Declares an index (the identity function, typed: `keysOf` gets the objects of `kind`). */
export function kindIndex<K extends ConfigKind>(index: KindIndex<K>): KindIndex<K> {
  return Object.freeze(index);
}
