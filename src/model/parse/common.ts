/** Readers for the message types shared by Istio and Aeraki objects (StringMatch, Destination, ...). */
import type { Destination, StringMatch, WorkloadSelector } from '../objects.ts';
import type { Fields, Raw } from './fields.ts';

const MATCH_KINDS = ['exact', 'prefix', 'regex'] as const;

/** A StringMatch object; at most one of exact, prefix, regex (a oneof). `{}` is kept as an empty match. */
export function readStringMatch(f: Fields, o: Raw, path: string): StringMatch {
  const out: { exact?: string; prefix?: string; regex?: string } = {};
  const given: string[] = [];
  for (const k of MATCH_KINDS) {
    const v = f.string(o, k, `${path}.${k}`);
    if (v !== undefined) {
      out[k] = v;
      given.push(k);
    }
  }
  if (given.length > 1) f.error(path, `only one of exact, prefix, regex may be set, got ${given.join(', ')}`);
  return out;
}

export function readStringMatchField(
  f: Fields,
  parent: Raw,
  key: string,
  path: string,
): StringMatch | undefined {
  const o = f.object(parent, key, path);
  return o ? readStringMatch(f, o, path) : undefined;
}

/** Map of name → StringMatch (HTTP headers); keys kept in sorted order. */
export function readStringMatchMap(
  f: Fields,
  parent: Raw,
  key: string,
  path: string,
): Record<string, StringMatch> | undefined {
  const o = f.object(parent, key, path);
  if (!o) return undefined;
  const out: Record<string, StringMatch> = {};
  for (const k of Object.keys(o).sort()) {
    const m = f.object(o, k, `${path}.${k}`);
    out[k] = m ? readStringMatch(f, m, `${path}.${k}`) : {};
  }
  return out;
}

export function readDestination(f: Fields, o: Raw, path: string): Destination | undefined {
  const host = f.requiredString(o, 'host', `${path}.host`);
  const subset = f.string(o, 'subset', `${path}.subset`);
  const portObj = f.object(o, 'port', `${path}.port`);
  const number = portObj ? f.port(portObj, 'number', `${path}.port.number`) : undefined;
  if (host === undefined) return undefined;
  return {
    host,
    ...(subset !== undefined ? { subset } : {}),
    ...(portObj ? { port: number !== undefined ? { number } : {} } : {}),
  };
}

export function readDestinationField(
  f: Fields,
  parent: Raw,
  key: string,
  path: string,
): Destination | undefined {
  const o = f.object(parent, key, path);
  if (!o) {
    if (parent[key] === undefined || parent[key] === null) f.error(path, 'required field is missing');
    return undefined;
  }
  return readDestination(f, o, path);
}

export function readWorkloadSelector(
  f: Fields,
  parent: Raw,
  key: string,
  path: string,
): WorkloadSelector | undefined {
  const o = f.object(parent, key, path);
  return o ? { labels: f.stringMap(o, 'labels', `${path}.labels`) } : undefined;
}

/** Optional string list: undefined when absent (exportTo distinguishes "absent" from "[]" nowhere, but keep it). */
export function readOptionalStringList(
  f: Fields,
  parent: Raw,
  key: string,
  path: string,
): string[] | undefined {
  return parent[key] === undefined || parent[key] === null ? undefined : f.stringList(parent, key, path);
}
