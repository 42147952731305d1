/**
 * The admin HTTP server (node:http):
 *
 * | path                  | answer                                                                          |
 * |-----------------------|---------------------------------------------------------------------------------|
 * | `/healthz`            | 200 `ok` while the process serves (and `live()`, if given, is true), else 503   |
 * | `/readyz`             | 200 iff every readiness check passes, else 503; JSON naming every check         |
 * | `/metrics`            | Prometheus text from the metrics source                                          |
 * | `/debug/config`       | JSON from the `config` provider                                                  |
 * | `/debug/envoyfilters` | JSON from the `envoyfilters` provider (desired set and its diff)                 |
 * | `/debug/routes`       | JSON from the `routes` provider                                                  |
 * | `/debug/registries`   | JSON from the `registries` provider (per registry: connected, synced, counts)    |
 * | `/debug/proxies`      | JSON from the `proxies` provider (per RDS proxy: routes acknowledged, rejected)  |
 * | `/debug/protocols`    | JSON from the `protocols` provider (detected port-name protocols, plugin facts)  |
 * | `/debug/`             | the read-only debug page (debug-page.ts; `/debug` and `/` redirect here), strict |
 * |                       | CSP                                                                             |
 *
 * Unknown paths get 404, other methods than GET/HEAD get 405 (with `Allow`), a request with a body 413 (the
 * connection is then closed). A provider or check that throws or rejects never crashes the process: 500 with
 * `{"error": message}` (never a stack trace; a throwing check is "not ready" with its message as reason). Bodies
 * are never cached (`Cache-Control: no-store`). Slow or oversized clients are dropped (util/http-limits.ts).
 *
 * `paths: 'debug'` serves only `/debug/*` (the loopback debug listener of `aeraki serve`); `'ops'` everything
 * but `/debug/*`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorFields, type Logger } from '../util/logger.ts';
import { formatAddress, type ListenAddress } from '../util/address.ts';
import { httpServerOptions, type HttpLimits } from '../util/http-limits.ts';
import { runChecks, type ReadinessCheck } from './readiness.ts';
import { DEBUG_PAGE_CSP, debugPageFile, readDebugPageFile, type DebugPageFile } from './debug-page.ts';

export type { ReadinessCheck, ReadinessStatus } from './readiness.ts';

/** A JSON document for a debug endpoint; called once per request, may be async. */
export type DebugProvider = () => unknown;
export type DebugEndpoint = 'config' | 'envoyfilters' | 'routes' | 'registries' | 'proxies' | 'protocols';
export const DEBUG_ENDPOINTS: readonly DebugEndpoint[] = [
  'config',
  'envoyfilters',
  'routes',
  'registries',
  'proxies',
  'protocols',
];

/** What `/metrics` serves (AerakiMetrics fits). */
export interface MetricsSource {
  readonly contentType: string;
  render(): Promise<string>;
}

export interface AdminServerOptions {
  /** Where to listen (see util/address.ts); port 0 picks a free port (see `start()`'s result). */
  readonly address: ListenAddress;
  readonly metrics?: MetricsSource;
  /** Readiness checks by name (more can be added with `addReadinessCheck`). */
  readonly readiness?: Readonly<Record<string, ReadinessCheck>>;
  readonly debug?: Partial<Record<DebugEndpoint, DebugProvider>>;
  /** Liveness beyond "the event loop answers" (default: always live). */
  readonly live?: () => boolean;
  /** A readiness check that has not answered after this long fails (default 5000 ms). */
  readonly checkTimeoutMs?: number;
  /** Which paths exist (default `all`). */
  readonly paths?: 'all' | 'ops' | 'debug';
  readonly limits?: Partial<HttpLimits>;
  readonly logger: Logger;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export class AdminServer {
  private readonly server: Server;
  private readonly log: Logger;
  private readonly checks = new Map<string, ReadinessCheck>();
  private readonly debug = new Map<DebugEndpoint, DebugProvider>();
  private shuttingDown = false;
  private bound: ListenAddress | undefined;

  constructor(private readonly options: AdminServerOptions) {
    this.log = options.logger.child({ component: 'admin' });
    for (const [name, check] of Object.entries(options.readiness ?? {})) this.checks.set(name, check);
    for (const name of DEBUG_ENDPOINTS) {
      const p = options.debug?.[name];
      if (p) this.debug.set(name, p);
    }
    this.server = createServer(httpServerOptions(options.limits), (req, res) => {
      this.handle(req, res).catch((err: unknown) => this.fail(res, req, err));
    });
  }

  /** Adds (or replaces) a readiness check; returns a function removing it. */
  addReadinessCheck(name: string, check: ReadinessCheck): () => void {
    this.checks.set(name, check);
    return () => {
      if (this.checks.get(name) === check) this.checks.delete(name);
    };
  }

  /** Sets the provider of `/debug/<name>`; returns a function removing it. */
  setDebugProvider(name: DebugEndpoint, provider: DebugProvider): () => void {
    this.debug.set(name, provider);
    return () => {
      if (this.debug.get(name) === provider) this.debug.delete(name);
    };
  }

  /** From now on `/readyz` answers 503 (reason `shutting down`) so load balancers drain; `/healthz` stays 200. */
  beginShutdown(): void {
    this.shuttingDown = true;
  }

  /** The bound address once started. */
  get address(): ListenAddress | undefined {
    return this.bound;
  }

  /** Binds and serves; resolves with the bound address (the real port when 0 was asked). Rejects when
   *  binding fails (e.g. EADDRINUSE). */
  async start(): Promise<ListenAddress> {
    const addr = this.options.address;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) =>
        reject(
          new Error(`admin server: cannot listen on ${formatAddress(addr.host, addr.port)}`, { cause: err }),
        );
      this.server.once('error', onError);
      this.server.listen({ host: addr.host === '' ? undefined : addr.host, port: addr.port }, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    this.server.on('error', (err) => this.log.error('admin server error', errorFields(err)));
    const info = this.server.address() as AddressInfo;
    this.bound = { host: addr.host, port: info.port };
    this.log.info('admin: listening', { address: formatAddress(addr.host || '0.0.0.0', info.port) });
    return this.bound;
  }

  /** Stops accepting, closes every connection (keep-alive ones too) and resolves when the server is closed. */
  async stop(): Promise<void> {
    this.shuttingDown = true;
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    this.log.info('admin: stopped');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://admin').pathname;
    } catch {
      this.send(res, req, 400, JSON_TYPE, json({ error: 'bad request URL' }));
      return;
    }
    const route = this.route(path);
    if (hasBody(req)) {
      res.setHeader('Connection', 'close');
      this.send(res, req, 413, JSON_TYPE, json({ error: 'admin requests take no body', path }));
      return;
    }
    if (route === undefined) {
      this.send(res, req, 404, JSON_TYPE, json({ error: 'not found', path }));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      this.send(res, req, 405, JSON_TYPE, json({ error: `method ${req.method ?? ''} not allowed`, path }));
      return;
    }
    await route(req, res);
  }

  private route(path: string): ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined {
    const paths = this.options.paths ?? 'all';
    // The page is what a browser pointed at the listener wants: `/` leads there as `/debug` does.
    if ((path === '/debug' || path === '/') && paths !== 'ops') {
      return (req, res) => this.redirect('/debug/', req, res);
    }
    if (paths === 'debug' && !path.startsWith('/debug/')) return undefined;
    if (paths === 'ops' && path.startsWith('/debug/')) return undefined;
    switch (path) {
      case '/healthz':
        return (req, res) => this.healthz(req, res);
      case '/readyz':
        return (req, res) => this.readyz(req, res);
      case '/metrics':
        return (req, res) => this.metrics(req, res);
    }
    const name = path.startsWith('/debug/') ? path.slice('/debug/'.length) : undefined;
    if (name !== undefined && (DEBUG_ENDPOINTS as readonly string[]).includes(name)) {
      return (req, res) => this.debugDoc(name as DebugEndpoint, req, res);
    }
    const page = debugPageFile(path);
    return page ? (req, res) => this.debugPage(page, req, res) : undefined;
  }

  private async debugPage(page: DebugPageFile, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readDebugPageFile(page);
    res.setHeader('Content-Security-Policy', DEBUG_PAGE_CSP);
    res.setHeader('Referrer-Policy', 'no-referrer');
    this.send(res, req, 200, page.contentType, text);
  }

  private redirect(location: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('Location', location);
    this.send(res, req, 308, 'text/plain; charset=utf-8', `see ${location}\n`);
    return Promise.resolve();
  }

  private healthz(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let live: boolean;
    try {
      live = this.options.live?.() ?? true;
    } catch {
      live = false;
    }
    this.send(res, req, live ? 200 : 503, 'text/plain; charset=utf-8', live ? 'ok\n' : 'not live\n');
    return Promise.resolve();
  }

  private async readyz(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const checks = await runChecks(this.checks, this.options.checkTimeoutMs ?? 5000);
    if (this.shuttingDown) checks.push({ name: 'shutdown', ready: false, reason: 'shutting down' });
    const ready = checks.every((c) => c.ready);
    const failing = checks.filter((c) => !c.ready).map((c) => c.name);
    this.send(res, req, ready ? 200 : 503, JSON_TYPE, json({ ready, failing, checks }));
  }

  private async metrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const source = this.options.metrics;
    if (!source) {
      this.send(res, req, 404, JSON_TYPE, json({ error: 'metrics are not enabled' }));
      return;
    }
    const text = await source.render();
    this.send(res, req, 200, source.contentType, text);
  }

  private async debugDoc(name: DebugEndpoint, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const provider = this.debug.get(name);
    if (!provider) {
      this.send(res, req, 404, JSON_TYPE, json({ error: `no provider for /debug/${name}` }));
      return;
    }
    const doc: unknown = await provider();
    this.send(res, req, 200, JSON_TYPE, json(doc));
  }

  private fail(res: ServerResponse, req: IncomingMessage, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.log.warn('admin: request failed', { path: req.url, ...errorFields(err) });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    this.send(res, req, 500, JSON_TYPE, json({ error: message }));
  }

  private send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string): void {
    res.statusCode = status;
    res.setHeader('Content-Type', type);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}

/** A request announcing a body (admin paths take none). */
function hasBody(req: IncomingMessage): boolean {
  const length = Number(req.headers['content-length'] ?? '0');
  return req.headers['transfer-encoding'] !== undefined || !(length === 0);
}

/** Pretty JSON; throws (→ 500) on what JSON cannot hold (cycles, BigInt). */
function json(value: unknown): string {
  return `${JSON.stringify(value ?? null, null, 2)}\n`;
}
