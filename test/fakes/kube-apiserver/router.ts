// URL routing: discovery documents and resource paths, as the real server lays them out.
import type { Registry } from './registry.ts';
import type { ResourceType, Verb } from './types.ts';

export type Route =
  | { kind: 'version' | 'api' | 'apis' | 'openapi' }
  | { kind: 'group'; group: string }
  | { kind: 'resources'; group: string; version: string }
  | {
      kind: 'resource';
      rt: ResourceType;
      group: string;
      version: string;
      plural: string;
      namespace?: string;
      name?: string;
      subresource?: string;
      /** Old-style `/watch/` path prefix. */
      watchPath: boolean;
    }
  | { kind: 'unknown'; group?: string; version?: string; plural?: string; namespace?: string; name?: string };

function resourceRoute(registry: Registry, group: string, version: string, rest: string[]): Route {
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  let parts = rest;
  if (rest[0] === 'namespaces' && rest.length >= 3 && registry.find(group, rest[2]!, version)?.namespaced) {
    namespace = rest[1];
    parts = rest.slice(2);
  }
  const [plural, name, subresource, ...extra] = parts;
  const rt = plural === undefined ? undefined : registry.find(group, plural, version);
  if (!rt) return unknownResource(group, version, rest);
  if (extra.length > 0) return { kind: 'unknown', group, version, plural };
  if (namespace !== undefined && !rt.namespaced) return { kind: 'unknown', group, version, plural };
  if (name !== undefined && rt.namespaced && namespace === undefined)
    return { kind: 'unknown', group, version, plural };
  if (subresource !== undefined && !(subresource === 'status' && rt.statusSubresource)) {
    return { kind: 'unknown', group, version, plural };
  }
  return { kind: 'resource', rt, group, version, plural: rt.plural, namespace, name, subresource, watchPath };
}

/** A resource path nothing serves, with the attributes the authorizer would see (namespace, plural, name). */
function unknownResource(group: string, version: string, rest: string[]): Route {
  const namespaced = rest[0] === 'namespaces' && rest.length >= 3;
  const [plural, name] = namespaced ? rest.slice(2) : rest;
  const out: Extract<Route, { kind: 'unknown' }> = { kind: 'unknown', group, version, plural };
  if (namespaced) out.namespace = rest[1];
  if (name !== undefined) out.name = name;
  return out;
}

export function route(registry: Registry, pathname: string): Route {
  const seg = pathname
    .split('/')
    .filter((s) => s.length > 0)
    .map(decodeURIComponent);
  if (seg.length === 1 && seg[0] === 'version') return { kind: 'version' };
  if (seg[0] === 'openapi') return { kind: 'openapi' };
  if (seg[0] === 'api') {
    if (seg.length === 1) return { kind: 'api' };
    if (seg[1] !== 'v1') return { kind: 'unknown' };
    if (seg.length === 2) return { kind: 'resources', group: '', version: 'v1' };
    return resourceRoute(registry, '', 'v1', seg.slice(2));
  }
  if (seg[0] === 'apis') {
    if (seg.length === 1) return { kind: 'apis' };
    if (seg.length === 2) return { kind: 'group', group: seg[1]! };
    if (seg.length === 3) return { kind: 'resources', group: seg[1]!, version: seg[2]! };
    return resourceRoute(registry, seg[1]!, seg[2]!, seg.slice(3));
  }
  return { kind: 'unknown' };
}

/** The Kubernetes verb of a resource request (undefined: method not allowed). */
export function verbOf(method: string, hasName: boolean, watch: boolean): Verb | undefined {
  switch (method) {
    case 'GET':
      if (watch) return 'watch';
      return hasName ? 'get' : 'list';
    case 'POST':
      return hasName ? undefined : 'create';
    case 'PUT':
      return hasName ? 'update' : undefined;
    case 'PATCH':
      return hasName ? 'patch' : undefined;
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}
