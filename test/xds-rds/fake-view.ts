// A small ConfigView over in-memory objects for route-builder tests (lookups scan; fine for tests).
import { DEFAULT_MESH_CONFIG } from '../../src/model/mesh.ts';
import { normalizeHost } from '../../src/model/names.ts';
import type { ConfigKind, ConfigObject } from '../../src/model/objects.ts';
import type { ConfigView } from '../../src/model/view.ts';

function byAge<T extends ConfigObject>(list: T[]): T | undefined {
  return [...list].sort((a, b) => {
    const ta = a.metadata.creationTimestamp;
    const tb = b.metadata.creationTimestamp;
    if (ta !== tb) return ta < tb ? -1 : 1;
    const ka = `${a.metadata.namespace}/${a.metadata.name}`;
    const kb = `${b.metadata.namespace}/${b.metadata.name}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  })[0];
}

export function fakeView(objects: readonly ConfigObject[]): ConfigView {
  const sorted = [...objects].sort((a, b) => {
    const ka = `${a.metadata.namespace}/${a.metadata.name}`;
    const kb = `${b.metadata.namespace}/${b.metadata.name}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  const list = <K extends ConfigKind>(kind: K) =>
    sorted.filter((o) => o.kind === kind) as Extract<ConfigObject, { kind: K }>[];
  const view: ConfigView = {
    rootNamespace: 'istio-system',
    mesh: () => DEFAULT_MESH_CONFIG,
    list,
    get: (kind, namespace, name) =>
      list(kind).find((o) => o.metadata.namespace === namespace && o.metadata.name === name),
    serviceEntries: () => list('ServiceEntry'),
    gateways: () => list('Gateway'),
    virtualServiceForHost: (host, ns) =>
      byAge(
        list('VirtualService').filter((v) =>
          v.spec.hosts.some((h) => normalizeHost(h, v.metadata.namespace) === normalizeHost(host, ns)),
        ),
      ),
    destinationRuleForHost: (host, ns) =>
      byAge(
        list('DestinationRule').filter(
          (d) => normalizeHost(d.spec.host, d.metadata.namespace) === normalizeHost(host, ns),
        ),
      ),
    metaRouterForHost: (host, ns) =>
      byAge(
        list('MetaRouter').filter((m) =>
          m.spec.hosts.some((h) => normalizeHost(h, m.metadata.namespace) === normalizeHost(host, ns)),
        ),
      ),
    configForHost: (host, ns) => ({
      virtualService: view.virtualServiceForHost(host, ns),
      destinationRule: view.destinationRuleForHost(host, ns),
      metaRouter: view.metaRouterForHost(host, ns),
    }),
    metaRoutersForGateway: () => [],
    codecFor: () => undefined,
    applicationProtocols: () => list('ApplicationProtocol'),
  };
  return view;
}
