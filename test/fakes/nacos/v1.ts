// The Nacos v1 naming Open API (nacos.io "Open API Guide" for 1.x, what the `nacos` npm client calls).
import type { Answer, FakeNacos, RequestRecord } from './server.ts';
import { DEFAULT_CLUSTER, namespaceOf, splitGrouped, type FakeInstance } from './store.ts';

const BASE = '/nacos/v1/ns';

/** The answer of a v1 route, or undefined when the path is not one. */
export function handleV1(fake: FakeNacos, r: RequestRecord): Answer | undefined {
  const q = r.query;
  const ns = namespaceOf(q['namespaceId']);
  const route = `${r.method} ${r.path}`;
  switch (route) {
    case `GET ${BASE}/service/list`:
      return serviceList(fake, ns, q);
    case `GET ${BASE}/instance/list`:
      return instanceList(fake, ns, q);
    case `POST ${BASE}/instance`:
      return register(fake, ns, q);
    case `DELETE ${BASE}/instance`:
      return deregister(fake, ns, q);
    case `PUT ${BASE}/instance/beat`:
      return { status: 200, body: { clientBeatInterval: 5000, code: 10200, lightBeatEnabled: false } };
    case `GET ${BASE}/operator/metrics`:
      return { status: 200, body: { status: 'UP' } };
    default:
      return undefined;
  }
}

function missing(name: string): Answer {
  return { status: 400, body: `caused: Param '${name}' is required.;` };
}

function serviceList(fake: FakeNacos, ns: string, q: Readonly<Record<string, string>>): Answer {
  const pageNo = Number(q['pageNo']);
  const pageSize = Number(q['pageSize']);
  if (!q['pageNo']) return missing('pageNo');
  if (!q['pageSize']) return missing('pageSize');
  const all = fake.store.services(ns, q['groupName'] || 'DEFAULT_GROUP');
  const start = Math.max(0, (pageNo - 1) * pageSize);
  return { status: 200, body: { count: all.length, doms: all.slice(start, start + pageSize) } };
}

function instanceList(fake: FakeNacos, ns: string, q: Readonly<Record<string, string>>): Answer {
  if (!q['serviceName']) return missing('serviceName');
  const [group, service] = splitGrouped(q['serviceName'], q['groupName']);
  const clusters = (q['clusters'] ?? '').split(',').filter((c) => c !== '');
  const hosts = fake.store
    .instances(ns, group, service)
    .filter((i) => fake.listDisabled || i.enabled)
    .filter((i) => q['healthyOnly'] !== 'true' || i.healthy)
    .filter((i) => clusters.length === 0 || clusters.includes(i.clusterName))
    .map((i) => hostJson(i, `${group}@@${service}`));
  return {
    status: 200,
    body: {
      name: `${group}@@${service}`,
      groupName: group,
      clusters: q['clusters'] ?? '',
      cacheMillis: 10000,
      hosts,
      lastRefTime: Date.now(),
      checksum: '',
      allIPs: false,
      reachProtectionThreshold: false,
      valid: true,
    },
  };
}

/** One instance as Nacos serialises it. */
export function hostJson(i: FakeInstance, groupedService: string): Record<string, unknown> {
  return {
    instanceId: `${i.ip}#${i.port}#${i.clusterName}#${groupedService}`,
    ip: i.ip,
    port: i.port,
    weight: i.weight,
    healthy: i.healthy,
    enabled: i.enabled,
    ephemeral: i.ephemeral,
    clusterName: i.clusterName,
    serviceName: groupedService,
    metadata: i.metadata,
    instanceHeartBeatInterval: 5000,
    instanceHeartBeatTimeOut: 15000,
    ipDeleteTimeout: 30000,
    instanceIdGenerator: 'simple',
  };
}

function register(fake: FakeNacos, ns: string, q: Readonly<Record<string, string>>): Answer {
  for (const p of ['serviceName', 'ip', 'port']) if (!q[p]) return missing(p);
  const [group, service] = splitGrouped(q['serviceName']!, q['groupName']);
  let metadata: Record<string, string> = {};
  if (q['metadata']) {
    try {
      metadata = JSON.parse(q['metadata']) as Record<string, string>;
    } catch {
      return { status: 400, body: `caused: metadata format incorrect:${q['metadata']};` };
    }
  }
  const enabled = q['enabled'] ?? q['enable'];
  fake.store.register(ns, group, service, {
    ip: q['ip']!,
    port: Number(q['port']),
    weight: q['weight'] ? Number(q['weight']) : 1,
    healthy: q['healthy'] !== 'false',
    enabled: enabled !== 'false',
    ephemeral: q['ephemeral'] !== 'false',
    clusterName: q['clusterName'] || DEFAULT_CLUSTER,
    metadata,
  });
  return { status: 200, body: 'ok' };
}

function deregister(fake: FakeNacos, ns: string, q: Readonly<Record<string, string>>): Answer {
  for (const p of ['serviceName', 'ip', 'port']) if (!q[p]) return missing(p);
  const [group, service] = splitGrouped(q['serviceName']!, q['groupName']);
  fake.store.deregister(ns, group, service, q['ip']!, Number(q['port']), q['clusterName'] || DEFAULT_CLUSTER);
  return { status: 200, body: 'ok' };
}
