// The Nacos naming HTTP APIs the watcher reads: the v1 Open API (Nacos 1.x/2.x, and 3.x with the legacy adapter)
// and the Nacos 3 APIs (admin service list, client instance list; nacos.io "Client API" / "Admin API").
import { isPlainObject } from '../../util/json.ts';
import { NacosAuth, type NacosCredentials } from './auth.ts';
import { describeBody, NacosApiError, NacosHttp, type NacosHttpOptions } from './http.ts';

export { NacosApiError, type FetchFn } from './http.ts';

export type NacosApiVersion = 'v1' | 'v3';

/** One instance as listed (com.alibaba.nacos.api.naming.pojo.Instance); absent flags count as true. */
export interface NacosInstance {
  readonly ip: string;
  readonly port: number;
  readonly healthy: boolean;
  readonly enabled: boolean;
  readonly weight: number;
  readonly clusterName: string;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface NacosApiOptions extends NacosHttpOptions {
  /** Log in with these (Nacos' default auth) and send the accessToken with every request. */
  readonly credentials?: NacosCredentials;
  /** Milliseconds since the epoch (token refresh). */
  readonly now: () => number;
}

const V3_SERVICE_LIST = '/v3/admin/ns/service/list';
const V3_INSTANCE_LIST = '/v3/client/ns/instance/list';
const V1_SERVICE_LIST = '/v1/ns/service/list';
const V1_INSTANCE_LIST = '/v1/ns/instance/list';

export class NacosApi {
  private readonly http: NacosHttp;
  private readonly auth: NacosAuth | undefined;

  constructor(options: NacosApiOptions) {
    this.http = new NacosHttp(options);
    this.auth = options.credentials ? new NacosAuth(this.http, options.credentials, options.now) : undefined;
  }

  /**
   * Which API the server offers: v3 when its service list answers, v1 when that path is not found (404). Any other
   * failure is thrown (and the probe repeated on the next attempt).
   */
  async probe(namespace: string, signal: AbortSignal): Promise<NacosApiVersion> {
    try {
      await this.v3Data(V3_SERVICE_LIST, { namespaceId: namespace, pageNo: '1', pageSize: '1' }, signal);
      return 'v3';
    } catch (err) {
      if (err instanceof NacosApiError && err.status === 404) return 'v1';
      throw err;
    }
  }

  /** One page (1-based) of a group's service names, the group's total, and the page's length as answered. */
  async listServices(
    api: NacosApiVersion,
    namespace: string,
    group: string,
    pageNo: number,
    pageSize: number,
    signal: AbortSignal,
  ): Promise<{ total: number; names: string[]; pageLength: number }> {
    const paging = { namespaceId: namespace, pageNo: String(pageNo), pageSize: String(pageSize) };
    if (api === 'v1') {
      const body = await this.get(V1_SERVICE_LIST, { ...paging, groupName: group }, signal);
      const doms = isPlainObject(body) ? body['doms'] : undefined;
      const count = isPlainObject(body) ? Number(body['count']) : NaN;
      if (!Array.isArray(doms) || !Number.isFinite(count))
        throw this.shapeError(V1_SERVICE_LIST, 'count and doms');
      return { total: count, names: doms.map(String), pageLength: doms.length };
    }
    const data = await this.v3Data(V3_SERVICE_LIST, { ...paging, groupNameParam: group }, signal);
    const items = isPlainObject(data) ? data['pageItems'] : undefined;
    const total = isPlainObject(data) ? Number(data['totalCount']) : NaN;
    if (!Array.isArray(items) || !Number.isFinite(total)) {
      throw this.shapeError(V3_SERVICE_LIST, 'totalCount and pageItems');
    }
    // groupNameParam may match more than the one group: keep the group's own services.
    const names = items
      .filter((i) => isPlainObject(i) && (i['groupName'] === undefined || i['groupName'] === group))
      .map((i) => String((i as Record<string, unknown>)['name']));
    return { total, names, pageLength: items.length };
  }

  /** Every instance of one service (healthy or not; the caller filters). */
  async listInstances(
    api: NacosApiVersion,
    namespace: string,
    group: string,
    service: string,
    signal: AbortSignal,
  ): Promise<NacosInstance[]> {
    const query = { namespaceId: namespace, groupName: group, serviceName: service };
    if (api === 'v1') {
      // The grouped form, as the official clients send it (Nacos 2.x checks `group@@service` on v1 reads).
      const grouped = { ...query, serviceName: `${group}@@${service}`, healthyOnly: 'false' };
      const body = await this.get(V1_INSTANCE_LIST, grouped, signal);
      const hosts = isPlainObject(body) ? body['hosts'] : undefined;
      if (!Array.isArray(hosts)) throw this.shapeError(V1_INSTANCE_LIST, 'hosts');
      return hosts.filter(isPlainObject).map(toInstance);
    }
    const data = await this.v3Data(V3_INSTANCE_LIST, query, signal);
    if (!Array.isArray(data)) throw this.shapeError(V3_INSTANCE_LIST, 'a list');
    return data.filter(isPlainObject).map(toInstance);
  }

  /** GET a Nacos 3 path and unwrap its `{code, message, data}` result (code 0 = success). */
  private async v3Data(path: string, query: Record<string, string>, signal: AbortSignal): Promise<unknown> {
    const body = await this.get(path, query, signal);
    if (!isPlainObject(body) || !('code' in body))
      throw this.shapeError(path, 'a {code, message, data} result');
    if (body['code'] !== 0) {
      throw new NacosApiError(
        `${this.http.where('GET', path)}: code ${String(body['code'])}: ${describeBody(body)}`,
        200,
      );
    }
    return body['data'];
  }

  /** A GET with the accessToken when logged in; a refused token is forgotten. */
  private async get(path: string, query: Record<string, string>, signal: AbortSignal): Promise<unknown> {
    if (!this.auth) return this.http.json('GET', path, query, signal);
    const accessToken = await this.auth.accessToken(signal);
    try {
      return await this.http.json('GET', path, { ...query, accessToken }, signal);
    } catch (err) {
      if (err instanceof NacosApiError && (err.status === 401 || err.status === 403)) this.auth.invalidate();
      throw err;
    }
  }

  private shapeError(path: string, what: string): NacosApiError {
    return new NacosApiError(`${this.http.where('GET', path)}: the answer has no ${what}`, 200);
  }
}

function toInstance(h: Record<string, unknown>): NacosInstance {
  const metadata: Record<string, string> = {};
  if (isPlainObject(h['metadata'])) {
    for (const [k, v] of Object.entries(h['metadata']))
      metadata[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return {
    ip: typeof h['ip'] === 'string' ? h['ip'] : '',
    port: Number(h['port']),
    // Nacos 1.x named the health flag `valid`.
    healthy: h['healthy'] !== false && h['valid'] !== false,
    enabled: h['enabled'] !== false,
    weight: typeof h['weight'] === 'number' ? h['weight'] : 1,
    clusterName: typeof h['clusterName'] === 'string' ? h['clusterName'] : '',
    metadata,
  };
}
