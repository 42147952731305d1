// The Nacos 3 naming APIs the watcher reads: the admin service list (Page<ServiceView>) and the client instance
// list (which leaves out disabled instances), both in the `{code, message, data}` result body
// (nacos.io "Client API" / "Admin API", Nacos 3.x).
import type { Answer, RequestRecord } from './server.ts';
import { hostJson } from './v1.ts';
import { namespaceOf, type FakeNacosStore } from './store.ts';

const SERVICE_LIST = '/nacos/v3/admin/ns/service/list';
const INSTANCE_LIST = '/nacos/v3/client/ns/instance/list';

function ok(data: unknown): Answer {
  return { status: 200, body: { code: 0, message: 'success', data } };
}

function missing(name: string): Answer {
  return {
    status: 400,
    body: { code: 10000, message: 'parameter missing', data: `Required parameter '${name}' is not present` },
  };
}

/** The answer of a v3 route, or undefined when the path is not one. */
export function handleV3(store: FakeNacosStore, r: RequestRecord): Answer | undefined {
  if (r.method !== 'GET') return undefined;
  const q = r.query;
  const ns = namespaceOf(q['namespaceId']);
  if (r.path === SERVICE_LIST) {
    const group = q['groupNameParam'] || 'DEFAULT_GROUP';
    const pageNo = Number(q['pageNo'] || '1');
    const pageSize = Number(q['pageSize'] || '100');
    const all = store.services(ns, group);
    const start = Math.max(0, (pageNo - 1) * pageSize);
    const pageItems = all.slice(start, start + pageSize).map((name) => {
      const instances = store.instances(ns, group, name);
      return {
        name,
        groupName: group,
        clusterCount: new Set(instances.map((i) => i.clusterName)).size,
        ipCount: instances.length,
        healthyInstanceCount: instances.filter((i) => i.healthy).length,
        triggerFlag: 'false',
      };
    });
    return ok({
      totalCount: all.length,
      pageNumber: pageNo,
      pagesAvailable: Math.ceil(all.length / pageSize),
      pageItems,
    });
  }
  if (r.path === INSTANCE_LIST) {
    if (!q['serviceName']) return missing('serviceName');
    const group = q['groupName'] || 'DEFAULT_GROUP';
    const service = q['serviceName'];
    return ok(
      store
        .instances(ns, group, service)
        .filter((i) => i.enabled)
        .filter((i) => !q['clusterName'] || i.clusterName === q['clusterName'])
        .map((i) => hostJson(i, `${group}@@${service}`)),
    );
  }
  return undefined;
}
