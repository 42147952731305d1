// The Nacos naming HTTP APIs the watcher reads: the v1 Open API (Nacos 1.x/2.x, and 3.x with the legacy adapter)
// and the Nacos 3 APIs (admin service list, client instance list; nacos.io "Client API" / "Admin API").
import { isPlainObject } from '../../util/json.ts';

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

/** The part of `fetch` the client uses (injectable in tests). */
export type FetchFn = (
  url: string,
  init: { signal: AbortSignal },
) => Promise<{
  readonly status: number;
  text(): Promise<string>;
}>;

/** A request that failed: transport error, HTTP status other than 200, or an error or unreadable body. */
export class NacosApiError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'NacosApiError';
  }
}

export interface NacosApiOptions {
  /** `host:port` of each server; requests go to one, the next after a transport error or a 5xx. */
  readonly servers: readonly string[];
  /** Default `/nacos`. */
  readonly contextPath: string;
  readonly scheme: 'http' | 'https';
  readonly timeoutMs: number;
  readonly fetch: FetchFn;
}

const V3_SERVICE_LIST = '/v3/admin/ns/service/list';
const V3_INSTANCE_LIST = '/v3/client/ns/instance/list';

export class NacosApi {
  private current = 0;

  constructor(private readonly options: NacosApiOptions) {}

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
      const body = await this.json('/v1/ns/service/list', { ...paging, groupName: group }, signal);
      const doms = isPlainObject(body) ? body['doms'] : undefined;
      const count = isPlainObject(body) ? Number(body['count']) : NaN;
      if (!Array.isArray(doms) || !Number.isFinite(count))
        throw this.shapeError('/v1/ns/service/list', 'count and doms');
      return { total: count, names: doms.map(String), pageLength: doms.length };
    }
    const data = await this.v3Data(V3_SERVICE_LIST, { ...paging, groupNameParam: group }, signal);
    const items = isPlainObject(data) ? data['pageItems'] : undefined;
    const total = isPlainObject(data) ? Number(data['totalCount']) : NaN;
    if (!Array.isArray(items) || !Number.isFinite(total))
      throw this.shapeError(V3_SERVICE_LIST, 'totalCount and pageItems');
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
      const body = await this.json('/v1/ns/instance/list', { ...query, healthyOnly: 'false' }, signal);
      const hosts = isPlainObject(body) ? body['hosts'] : undefined;
      if (!Array.isArray(hosts)) throw this.shapeError('/v1/ns/instance/list', 'hosts');
      return hosts.filter(isPlainObject).map(toInstance);
    }
    const data = await this.v3Data(V3_INSTANCE_LIST, query, signal);
    if (!Array.isArray(data)) throw this.shapeError(V3_INSTANCE_LIST, 'a list');
    return data.filter(isPlainObject).map(toInstance);
  }

  /** GET a Nacos 3 path and unwrap its `{code, message, data}` result (code 0 = success). */
  private async v3Data(path: string, query: Record<string, string>, signal: AbortSignal): Promise<unknown> {
    const body = await this.json(path, query, signal);
    if (!isPlainObject(body) || !('code' in body))
      throw this.shapeError(path, 'a {code, message, data} result');
    if (body['code'] !== 0) {
      throw new NacosApiError(
        `nacos GET ${this.options.contextPath}${path}: code ${String(body['code'])}: ${describe(body)}`,
        200,
      );
    }
    return body['data'];
  }

  private async json(path: string, query: Record<string, string>, signal: AbortSignal): Promise<unknown> {
    const text = await this.get(path, query, signal);
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new NacosApiError(
        `nacos GET ${this.options.contextPath}${path}: the answer is not JSON: ${excerpt(text)}`,
        200,
        { cause: err },
      );
    }
  }

  private async get(path: string, query: Record<string, string>, signal: AbortSignal): Promise<string> {
    const { servers, scheme, contextPath, timeoutMs } = this.options;
    const qs = new URLSearchParams(query).toString();
    let last: NacosApiError | undefined;
    for (let i = 0; i < servers.length; i++) {
      const server = servers[(this.current + i) % servers.length]!;
      const where = `nacos GET ${scheme}://${server}${contextPath}${path}`;
      try {
        const res = await this.options.fetch(`${scheme}://${server}${contextPath}${path}?${qs}`, {
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
        });
        const text = await res.text();
        if (res.status === 200) {
          this.current = (this.current + i) % servers.length;
          return text;
        }
        last = new NacosApiError(`${where}: HTTP ${res.status}: ${errorText(text)}`, res.status);
        if (res.status < 500) throw last;
      } catch (err) {
        if (err === last) throw err;
        if (signal.aborted) throw err;
        last = new NacosApiError(`${where}: ${err instanceof Error ? err.message : String(err)}`, undefined, {
          cause: err,
        });
      }
    }
    this.current = (this.current + 1) % servers.length;
    throw last ?? new NacosApiError('nacos: no server configured', undefined);
  }

  private shapeError(path: string, what: string): NacosApiError {
    return new NacosApiError(`nacos GET ${this.options.contextPath}${path}: the answer has no ${what}`, 200);
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

/** The readable part of an error body: a JSON result's message/data, Spring's error/message, or the text. */
function errorText(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    if (isPlainObject(body)) return describe(body);
  } catch {
    // not JSON: the text itself
  }
  return excerpt(text) || '(empty body)';
}

function describe(body: Record<string, unknown>): string {
  const parts = ['message', 'error', 'data']
    .map((k) => body[k])
    .filter((v): v is string => typeof v === 'string' && v !== '');
  return excerpt([...new Set(parts)].join(': ') || JSON.stringify(body));
}

function excerpt(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > 200 ? `${t.slice(0, 200)}...` : t;
}
