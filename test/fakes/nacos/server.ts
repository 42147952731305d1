// A fake Nacos server speaking the naming HTTP APIs as documented: the v1 Open API (/nacos/v1/ns/..., what the
// official `nacos` npm client uses) and, when enabled, the Nacos 3 APIs (/nacos/v3/admin/ns/service/list,
// /nacos/v3/client/ns/instance/list) with their `{code, message, data}` result bodies. Fault controls below.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FakeNacosAuth } from './auth.ts';
import { handleV1 } from './v1.ts';
import { handleV3 } from './v3.ts';
import { FakeNacosStore } from './store.ts';

export interface RequestRecord {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
}

/** A canned answer instead of the real one. `status: 0` drops the connection without an answer. */
export interface FakeNacosFault {
  readonly status: number;
  readonly body?: string;
  readonly contentType?: string;
  /** Which requests (default all). */
  readonly match?: (r: RequestRecord) => boolean;
  /** How many requests it answers before it is spent (default unlimited). */
  times?: number;
}

export interface FakeNacosOptions {
  /** Serve the v1 API (default true; Nacos 3.2 without the legacy adapter has none). */
  readonly v1?: boolean;
  /** Serve the Nacos 3 API (default false: a Nacos 1.x/2.x server). */
  readonly v3?: boolean;
  /** Require a login with these credentials (Nacos' default auth). */
  readonly auth?: { readonly username: string; readonly password: string };
}

/** An answer of a route: JSON (objects) or text. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

export class FakeNacos {
  readonly store = new FakeNacosStore();
  readonly requests: RequestRecord[] = [];
  readonly faults: FakeNacosFault[] = [];
  v1: boolean;
  v3: boolean;
  /** v1 instance lists include disabled instances (`enabled: false`) as some server versions do. */
  listDisabled = false;
  /** Called with each request before it is answered (to change the data mid-read). */
  beforeAnswer: ((r: RequestRecord) => void) | undefined;
  readonly auth: FakeNacosAuth | undefined;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(options: FakeNacosOptions = {}) {
    this.v1 = options.v1 ?? true;
    this.v3 = options.v3 ?? false;
    this.auth = options.auth ? new FakeNacosAuth(options.auth.username, options.auth.password) : undefined;
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  static async start(options: FakeNacosOptions = {}): Promise<FakeNacos> {
    const f = new FakeNacos(options);
    await new Promise<void>((resolve) => f.server.listen(0, '127.0.0.1', resolve));
    f.port = (f.server.address() as AddressInfo).port;
    return f;
  }

  /** `host:port`, as given in `nacos://host:port`. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Adds a fault; returns it (its `times` counts down). */
  fail(fault: FakeNacosFault): FakeNacosFault {
    this.faults.push(fault);
    return fault;
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Requests whose path ends with `suffix`. */
  requestsTo(suffix: string): RequestRecord[] {
    return this.requests.filter((r) => r.path.endsWith(suffix));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query: Record<string, string> = Object.fromEntries(url.searchParams);
    // Form bodies (POST/PUT/DELETE) count as parameters too, as in Spring.
    const body = await readBody(req);
    if (body && (req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) {
      Object.assign(query, Object.fromEntries(new URLSearchParams(body)));
    }
    const record: RequestRecord = { method: req.method ?? 'GET', path: url.pathname, query };
    this.requests.push(record);
    this.beforeAnswer?.(record);
    const fault = this.faults.find((f) => (f.times ?? 1) > 0 && (f.match?.(record) ?? true));
    if (fault) {
      if (fault.times !== undefined) fault.times--;
      if (fault.status === 0) {
        req.socket.destroy();
        return;
      }
      res.writeHead(fault.status, { 'content-type': fault.contentType ?? 'text/plain;charset=UTF-8' });
      res.end(fault.body ?? '');
      return;
    }
    // Auth guards the APIs served; other paths fall through to 404.
    const served =
      (this.v1 && record.path.startsWith('/nacos/v1/')) || (this.v3 && record.path.startsWith('/nacos/v3/'));
    const answer =
      (served
        ? this.auth?.check(record, ['/nacos/v1/auth/login', '/nacos/v3/auth/user/login'])
        : undefined) ??
      (this.v1 ? handleV1(this, record) : undefined) ??
      (this.v3 ? handleV3(this.store, record) : undefined) ??
      notFound(record.path);
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      'content-type': typeof answer.body === 'string' ? 'text/plain;charset=UTF-8' : 'application/json',
    });
    res.end(text);
  }
}

/** Spring Boot's error body for an unmapped path. */
function notFound(path: string): Answer {
  return {
    status: 404,
    body: { timestamp: '2026-01-01T00:00:00.000+00:00', status: 404, error: 'Not Found', path },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (data += c));
    req.on('end', () => resolve(data));
    req.on('error', () => resolve(data));
  });
}
