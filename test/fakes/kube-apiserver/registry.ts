// The resource types a fake server serves, with the set every server starts with.
import type { ResourceRef, ResourceType } from './types.ts';

const ISTIO_VERSIONS = ['v1alpha3', 'v1beta1', 'v1'];

function istio(kind: string, plural: string, shortNames: string[]): ResourceType {
  return {
    group: 'networking.istio.io',
    versions: ISTIO_VERSIONS,
    kind,
    plural,
    namespaced: true,
    shortNames,
    statusSubresource: true,
    deleteReturns: 'object',
  };
}

/** Pre-registered on every fake server. */
export const DEFAULT_RESOURCES: readonly ResourceType[] = [
  {
    group: '',
    versions: ['v1'],
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    shortNames: ['ns'],
  },
  {
    group: '',
    versions: ['v1'],
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
    shortNames: ['cm'],
  },
  { group: '', versions: ['v1'], kind: 'Secret', plural: 'secrets', namespaced: true },
  { group: '', versions: ['v1'], kind: 'Service', plural: 'services', namespaced: true, shortNames: ['svc'] },
  { group: '', versions: ['v1'], kind: 'Pod', plural: 'pods', namespaced: true, shortNames: ['po'] },
  {
    group: '',
    versions: ['v1'],
    kind: 'ServiceAccount',
    plural: 'serviceaccounts',
    namespaced: true,
    shortNames: ['sa'],
  },
  {
    group: 'apps',
    versions: ['v1'],
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
    shortNames: ['deploy'],
    statusSubresource: true,
  },
  { group: 'coordination.k8s.io', versions: ['v1'], kind: 'Lease', plural: 'leases', namespaced: true },
  {
    group: 'discovery.k8s.io',
    versions: ['v1'],
    kind: 'EndpointSlice',
    plural: 'endpointslices',
    namespaced: true,
  },
  {
    group: 'events.k8s.io',
    versions: ['v1'],
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
  },
  istio('EnvoyFilter', 'envoyfilters', []),
  istio('VirtualService', 'virtualservices', ['vs']),
  istio('ServiceEntry', 'serviceentries', ['se']),
  istio('DestinationRule', 'destinationrules', ['dr']),
  istio('Gateway', 'gateways', ['gw']),
  {
    group: 'metaprotocol.aeraki.io',
    versions: ['v1alpha1'],
    kind: 'MetaRouter',
    plural: 'metarouters',
    namespaced: true,
    statusSubresource: true,
    deleteReturns: 'object',
  },
  {
    group: 'metaprotocol.aeraki.io',
    versions: ['v1alpha1'],
    kind: 'ApplicationProtocol',
    plural: 'applicationprotocols',
    namespaced: false,
    statusSubresource: true,
    deleteReturns: 'object',
  },
  {
    group: 'dubbo.aeraki.io',
    versions: ['v1alpha1'],
    kind: 'DubboAuthorizationPolicy',
    plural: 'dubboauthorizationpolicies',
    namespaced: true,
    shortNames: ['dap'],
    statusSubresource: true,
    deleteReturns: 'object',
  },
  redis('RedisService', 'redisservices'),
  redis('RedisDestination', 'redisdestinations'),
];

function redis(kind: string, plural: string): ResourceType {
  return {
    group: 'redis.aeraki.io',
    versions: ['v1alpha1'],
    kind,
    plural,
    namespaced: true,
    statusSubresource: true,
    deleteReturns: 'object',
  };
}

/** Kubernetes version priority: GA > beta > alpha, then by major, then by minor. */
export function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [-1, 0, 0];
    const level = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [level, Number(m[1]), Number(m[3] ?? 0)];
  };
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
  return a.localeCompare(b);
}

export function preferredVersion(rt: ResourceType): string {
  return [...rt.versions].sort(compareVersions).at(-1)!;
}

export function groupVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** Resource types by group/plural; also finds them by apiVersion + kind. */
export class Registry {
  private readonly byKey = new Map<string, ResourceType>();

  register(rt: ResourceType): ResourceType {
    const copy: ResourceType = { deleteReturns: rt.group ? 'object' : 'status', ...structuredClone(rt) };
    this.byKey.set(`${rt.group}/${rt.plural}`, copy);
    return copy;
  }

  /** Stops serving group/plural; returns the type that was registered. */
  unregister(group: string, plural: string): ResourceType | undefined {
    const rt = this.byKey.get(`${group}/${plural}`);
    this.byKey.delete(`${group}/${plural}`);
    return rt;
  }

  all(): ResourceType[] {
    return [...this.byKey.values()].sort((a, b) =>
      a.group === b.group ? a.plural.localeCompare(b.plural) : a.group.localeCompare(b.group),
    );
  }

  find(group: string, plural: string, version?: string): ResourceType | undefined {
    const rt = this.byKey.get(`${group}/${plural}`);
    if (rt && version !== undefined && !rt.versions.includes(version)) return undefined;
    return rt;
  }

  ref(ref: ResourceRef): ResourceType {
    const rt = this.find(ref.group, ref.resource, ref.version);
    if (!rt) throw new Error(`fake kube-apiserver: resource not registered: ${ref.resource}.${ref.group}`);
    return rt;
  }

  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    const slash = apiVersion.lastIndexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = apiVersion.slice(slash + 1);
    return this.all().find((rt) => rt.group === group && rt.kind === kind && rt.versions.includes(version));
  }

  groups(): string[] {
    return [...new Set(this.all().map((rt) => rt.group))].sort();
  }
}
