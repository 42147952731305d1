/**
 * Ambient inputs from documents (the directory source; model/parse/ambient.ts reads each): per kind the objects
 * read, the keys of those that cannot be read (their last good version stays in the store) and the issues (each
 * naming object and field; near misses as warnings). A later document of the same kind and key replaces an
 * earlier one, as for the other kinds (model/parse/objects.ts parseRawObjects).
 */
import {
  ambientKindOf,
  ambientNearMiss,
  parseAmbientObject,
  type AmbientKind,
  type AmbientObject,
} from '../model/parse/ambient.ts';
import type { ConfigIssue } from '../model/result.ts';
import { ambientKey, ambientObjectKey, type AmbientWrites } from './store-ambient.ts';

export const AMBIENT_KINDS: readonly AmbientKind[] = ['Namespace', 'KubernetesGateway', 'GatewayClass'];

export interface AmbientRead {
  readonly objects: ReadonlyMap<AmbientKind, readonly AmbientObject[]>;
  /** Keys (store-ambient.ts ambientKey) of the objects rejected: the store keeps their last good version. */
  readonly rejected: ReadonlyMap<AmbientKind, ReadonlySet<string>>;
  readonly issues: readonly ConfigIssue[];
}

export function readAmbientObjects(raws: readonly unknown[]): AmbientRead {
  const objects = new Map<AmbientKind, Map<string, AmbientObject>>(AMBIENT_KINDS.map((k) => [k, new Map()]));
  const rejected = new Map<AmbientKind, Set<string>>(AMBIENT_KINDS.map((k) => [k, new Set()]));
  const issues: ConfigIssue[] = [];
  for (const raw of raws) {
    const res = parseAmbientObject(raw);
    if (res === undefined) {
      const near = ambientNearMiss(raw);
      if (near) issues.push(near);
      continue;
    }
    issues.push(...res.issues);
    const ref = res.ok ? undefined : res.issues[0]?.ref;
    const kind = ambientKindOf(raw);
    if (kind === undefined) continue;
    const key = res.ok
      ? ambientObjectKey(res.value)
      : ambientKey(kind, ref?.namespace ?? '', ref?.name ?? '');
    objects.get(kind)!.delete(key);
    rejected.get(kind)!.delete(key);
    if (res.ok) objects.get(kind)!.set(key, res.value);
    else rejected.get(kind)!.add(key);
  }
  return {
    objects: new Map([...objects].map(([k, m]) => [k, [...m.values()]])),
    rejected,
    issues,
  };
}

/** Replaces each ambient kind in `target` with what `read` holds. */
export function fillAmbient(target: AmbientWrites, read: AmbientRead): void {
  for (const kind of AMBIENT_KINDS) {
    target.replace(kind, read.objects.get(kind) ?? [], read.rejected.get(kind));
  }
}
