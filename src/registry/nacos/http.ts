// HTTP to a Nacos cluster: one server at a time, the next after a transport error or a 5xx; error bodies (Nacos
// result JSON, Spring error JSON, or text) become the message of a NacosApiError.
import { isPlainObject } from '../../util/json.ts';

/** The part of `fetch` the client uses (injectable in tests). */
export type FetchFn = (
  url: string,
  init: {
    readonly signal: AbortSignal;
    readonly method?: string;
    readonly body?: string;
    readonly headers?: Record<string, string>;
  },
) => Promise<{ readonly status: number; text(): Promise<string> }>;

/** A request that failed: transport error, HTTP status other than 200, or an error or unreadable body. */
export class NacosApiError extends Error {
  constructor(
    message: string,
    /** The HTTP status; undefined for transport errors. */
    readonly status: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'NacosApiError';
  }
}

export interface NacosHttpOptions {
  /** `host:port` of each server. */
  readonly servers: readonly string[];
  /** e.g. `/nacos` ('' for none). */
  readonly contextPath: string;
  readonly scheme: 'http' | 'https';
  readonly timeoutMs: number;
  readonly fetch: FetchFn;
}

export class NacosHttp {
  private current = 0;

  constructor(readonly options: NacosHttpOptions) {}

  /** The body of a 200 answer; a NacosApiError otherwise (4xx at once; transport errors and 5xx after every server). */
  async request(
    method: 'GET' | 'POST',
    path: string,
    params: Record<string, string>,
    signal: AbortSignal,
  ): Promise<string> {
    const { servers, scheme, contextPath, timeoutMs } = this.options;
    const form = new URLSearchParams(params).toString();
    let last: NacosApiError | undefined;
    for (let i = 0; i < servers.length; i++) {
      const server = servers[(this.current + i) % servers.length]!;
      const base = `${scheme}://${server}${contextPath}${path}`;
      const where = `nacos ${method} ${base}`;
      try {
        const res = await this.options.fetch(method === 'GET' ? `${base}?${form}` : base, {
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
          ...(method === 'POST'
            ? { method, body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } }
            : {}),
        });
        const text = await res.text();
        if (res.status === 200) {
          this.current = (this.current + i) % servers.length;
          return text;
        }
        last = new NacosApiError(`${where}: HTTP ${res.status}: ${errorText(text)}`, res.status);
        if (res.status < 500) throw last;
      } catch (err) {
        if (err === last || signal.aborted) throw err;
        const reason = err instanceof Error ? err.message : String(err);
        last = new NacosApiError(`${where}: ${reason}`, undefined, { cause: err });
      }
    }
    this.current = (this.current + 1) % servers.length;
    throw last ?? new NacosApiError('nacos: no server configured', undefined);
  }

  /** `request`, parsed as JSON (a 200 answer that is not JSON is an error too). */
  async json(
    method: 'GET' | 'POST',
    path: string,
    params: Record<string, string>,
    signal: AbortSignal,
  ): Promise<unknown> {
    const text = await this.request(method, path, params, signal);
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new NacosApiError(`${this.where(method, path)}: the answer is not JSON: ${excerpt(text)}`, 200, {
        cause: err,
      });
    }
  }

  /** `nacos GET /nacos/v1/ns/...` for messages. */
  where(method: string, path: string): string {
    return `nacos ${method} ${this.options.contextPath}${path}`;
  }
}

/** The readable part of an error body: a JSON result's message/data, Spring's error/message, or the text. */
function errorText(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    if (isPlainObject(body)) return describeBody(body);
  } catch {
    // not JSON: the text itself
  }
  return excerpt(text) || '(empty body)';
}

/** `message: error: data` of a JSON error or result body (the string members present), or the JSON. */
export function describeBody(body: Record<string, unknown>): string {
  const parts = ['message', 'error', 'data']
    .map((k) => body[k])
    .filter((v): v is string => typeof v === 'string' && v !== '');
  return excerpt([...new Set(parts)].join(': ') || JSON.stringify(body));
}

function excerpt(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > 200 ? `${t.slice(0, 200)}...` : t;
}
