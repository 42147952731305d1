/**
 * What the directory state file keeps of a decoded object: only the fields the store reads. The object is read
 * once as the source reads it (parseRawObjects: the typed object or the rejection with the hosts and Gateways it
 * holds, the mesh config), through a proxy that records every field read; the fields never read are dropped. The
 * result is checked: read again, it must give exactly what the whole object gives, else the object is kept as
 * written (JSON). An object the store does not read (another kind) is not kept, nor a Secret (its values never
 * reach the state file: a restart with the Secret's file broken reads the Secret as missing).
 */
import type { ParseOptions } from '../model/parse/parse.ts';
import { recognisedKind } from '../model/parse/parse.ts';
import { parseRawObjects } from '../model/parse/objects.ts';
import { isMeshConfigMap } from '../model/parse/mesh.ts';
import { isPlainObject, stableStringify } from '../util/json.ts';

/** How the source reads objects: its root namespace (the mesh ConfigMap's) and parse options. */
export interface ReadContext {
  readonly rootNamespace: string;
  readonly options: ParseOptions;
}

/** `raw` with only the fields the store reads, as JSON; undefined when the store keeps nothing of it. */
export function keptFields(raw: unknown, ctx: ReadContext): unknown {
  if (!isPlainObject(raw)) return undefined;
  const kind = recognisedKind(raw, ctx.options.kinds);
  if (kind === 'Secret') return undefined;
  if (kind === undefined && !isMeshConfigMap(raw, ctx.rootNamespace)) return undefined;
  // A fresh copy (never frozen, JSON as the state file holds it) is read through the proxy.
  const json = asJson(raw);
  const whole = readingOf(json, ctx);
  try {
    const used = new Map<object, Set<PropertyKey>>();
    readingOf(tracked(json, used), ctx);
    const projected = asJson(project(json, used));
    if (readingOf(projected, ctx) === whole) return projected;
  } catch {
    // a reader the proxy cannot follow: the object is kept as written
  }
  return asJson(raw);
}

/** What the source makes of `raw`, as comparable text. */
function readingOf(raw: unknown, ctx: ReadContext): string {
  const parsed = parseRawObjects([raw], ctx.rootNamespace, [], ctx.options);
  return stableStringify(parsed);
}

function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function trackable(value: unknown): value is object {
  return Array.isArray(value) || (isPlainObject(value) && Object.getPrototypeOf(value) === Object.prototype);
}

/** A view of `value` that records, per object, the keys read (get and `in`). */
function tracked(value: unknown, used: Map<object, Set<PropertyKey>>): unknown {
  if (!trackable(value)) return value;
  let keys = used.get(value);
  if (!keys) used.set(value, (keys = new Set()));
  const seen = keys;
  return new Proxy(value, {
    get(target, key, receiver) {
      seen.add(key);
      return tracked(Reflect.get(target, key, receiver), used);
    },
    has(target, key) {
      seen.add(key);
      return Reflect.has(target, key);
    },
  });
}

/** `value` with the keys never read left out (lists keep every item; an object never looked into stays whole). */
function project(value: unknown, used: ReadonlyMap<object, ReadonlySet<PropertyKey>>): unknown {
  if (Array.isArray(value)) return value.map((v: unknown) => project(v, used));
  if (!trackable(value)) return value;
  const keys = used.get(value);
  if (!keys) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (keys.has(k)) out[k] = project(v, used);
  return out;
}
