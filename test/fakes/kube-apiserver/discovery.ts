// Legacy discovery documents (kubectl falls back to them when aggregated discovery is not offered).
// https://kubernetes.io/docs/concepts/overview/kubernetes-api/#discovery-api
import { compareVersions, groupVersion, type Registry } from './registry.ts';
import type { ResourceType } from './types.ts';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function versionInfo(): Record<string, string> {
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.4-fake',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function coreVersions(host: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: host }],
  };
}

function groupVersions(registry: Registry, group: string): string[] {
  const versions = new Set(
    registry
      .all()
      .filter((rt) => rt.group === group)
      .flatMap((rt) => rt.versions),
  );
  return [...versions].sort(compareVersions).reverse();
}

export function apiGroup(registry: Registry, group: string): Record<string, unknown> | undefined {
  const versions = groupVersions(registry, group);
  if (versions.length === 0) return undefined;
  const gv = (v: string): { groupVersion: string; version: string } => ({
    groupVersion: groupVersion(group, v),
    version: v,
  });
  return {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: group,
    versions: versions.map(gv),
    preferredVersion: gv(versions[0]!),
  };
}

export function apiGroupList(registry: Registry): Record<string, unknown> {
  const groups = registry
    .groups()
    .filter((g) => g !== '')
    .map((g) => {
      const { kind: _k, apiVersion: _a, ...rest } = apiGroup(registry, g)!;
      return rest;
    });
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

function resourceEntry(rt: ResourceType): Record<string, unknown> {
  const e: Record<string, unknown> = {
    name: rt.plural,
    singularName: rt.singular ?? rt.kind.toLowerCase(),
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: VERBS,
  };
  if (rt.shortNames && rt.shortNames.length > 0) e.shortNames = rt.shortNames;
  return e;
}

/** APIResourceList for one group/version, or undefined when nothing is served there. */
export function apiResourceList(
  registry: Registry,
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const types = registry.all().filter((rt) => rt.group === group && rt.versions.includes(version));
  if (types.length === 0) return undefined;
  const resources = types.flatMap((rt) => {
    const main = resourceEntry(rt);
    if (!rt.statusSubresource) return [main];
    const status = {
      name: `${rt.plural}/status`,
      singularName: '',
      namespaced: rt.namespaced,
      kind: rt.kind,
      verbs: ['get', 'patch', 'update'],
    };
    return [main, status];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion(group, version), resources };
}
