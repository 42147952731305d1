/**
 * The validating webhook's HTTPS server (node:https, TLS 1.2 or later): `POST /validate` and `/validate/` take an
 * AdmissionReview (v1 or v1beta1) and answer it (admission.ts). As Aeraki's server: an empty body is 400, a
 * Content-Type other than `application/json` is 415; a body that is not an AdmissionReview is 400, other paths
 * 404, other methods 405. Bodies over 3 MiB (the API server's own request limit) are 413, and the connection is
 * closed without reading the rest. Slow or oversized clients are dropped (util/http-limits.ts), and so are
 * connections that do not finish their TLS handshake in time or exceed the caps of pending ones, in all and per
 * source address (util/handshake-guard.ts: a flood from one source leaves the API server its slots); errors answer
 * a message, never a stack trace. The certificate is reloaded when its files change (serving-cert.ts), without a
 * restart.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatAddress, type ListenAddress } from '../util/address.ts';
import { httpServerOptions, type HttpLimits } from '../util/http-limits.ts';
import { systemClock, type Clock } from '../util/clock.ts';
import { DEFAULT_HANDSHAKE_LIMITS, HandshakeGuard, type HandshakeLimits } from '../util/handshake-guard.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import type { KindSpec } from '../model/kinds.ts';
import { answerReview, validatedKinds, type ObjectValidator } from './admission.ts';
import { ServingCertificate } from './serving-cert.ts';

export interface WebhookServerOptions {
  /** Port 0 picks a free port (see `start()`'s result). */
  readonly address: ListenAddress;
  readonly certFile: string;
  readonly keyFile: string;
  readonly validate: ObjectValidator;
  /** The plugins' kinds (plugins/registry.ts): validated with the core's own; any other kind is denied. */
  readonly kinds: readonly KindSpec[];
  readonly logger: Logger;
  /** How often the certificate files are polled (default 1000 ms). */
  readonly pollIntervalMs?: number;
  readonly limits?: Partial<HttpLimits>;
  /** Handshake timeout and cap of connections in their TLS handshake (default DEFAULT_HANDSHAKE_LIMITS). */
  readonly handshake?: HandshakeLimits;
  /** Times handshakes (default: the system clock). */
  readonly clock?: Clock;
}

const MAX_BODY = 3 * 1024 * 1024;
const JSON_TYPE = 'application/json';

export class WebhookServer {
  /** Connections in their TLS handshake (aeraki_tls_handshakes_total{listener="webhook"}). */
  readonly handshakes: HandshakeGuard;
  private readonly server: Server;
  private readonly cert: ServingCertificate;
  private readonly log: Logger;
  private readonly validated: ReadonlySet<string>;

  /** Throws when the certificate files are missing or do not form a pair. */
  constructor(private readonly options: WebhookServerOptions) {
    this.log = options.logger.child({ component: 'webhook' });
    this.validated = validatedKinds(options.kinds);
    this.cert = new ServingCertificate(options.certFile, options.keyFile, this.log, options.pollIntervalMs);
    const serverOptions = { ...httpServerOptions(options.limits), ...this.cert.current };
    this.server = createServer({ ...serverOptions, minVersion: 'TLSv1.2' }, (req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        this.log.error('webhook: request failed', errorFields(err));
        if (!res.headersSent) send(res, 500, { error: 'internal error' });
      });
    });
    const handshake = options.handshake ?? DEFAULT_HANDSHAKE_LIMITS;
    this.handshakes = new HandshakeGuard('webhook', handshake, this.log, options.clock ?? systemClock);
    this.handshakes.attachTls(this.server);
  }

  /** Binds, starts watching the certificate files, and resolves with the bound address. */
  async start(): Promise<ListenAddress> {
    const addr = this.options.address;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) =>
        reject(new Error(`webhook: cannot listen on ${formatAddress(addr.host, addr.port)}`, { cause: err }));
      this.server.once('error', onError);
      this.server.listen({ host: addr.host === '' ? undefined : addr.host, port: addr.port }, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    this.server.on('error', (err) => this.log.error('webhook server error', errorFields(err)));
    this.cert.onChange((pair) => this.server.setSecureContext({ ...pair, minVersion: 'TLSv1.2' }));
    const port = (this.server.address() as AddressInfo).port;
    this.log.info('webhook: listening', { address: formatAddress(addr.host || '0.0.0.0', port) });
    return { host: addr.host, port };
  }

  /** Re-reads the certificate files now (they are also polled); true when a new pair was applied. */
  reloadCertificate(): boolean {
    return this.cert.reload();
  }

  /** Stops watching, closes every connection and resolves when the server is closed. */
  async stop(): Promise<void> {
    this.cert.close();
    this.handshakes.close();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/validate' && path !== '/validate/') return send(res, 404, { error: 'not found' });
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return send(res, 405, { error: `method ${req.method ?? ''} not allowed` });
    }
    const body = await readBody(req);
    if (body === undefined) {
      res.setHeader('Connection', 'close');
      send(res, 413, { error: `the body exceeds ${MAX_BODY} bytes` });
      return;
    }
    if (body.length === 0) return send(res, 400, { error: 'empty body' });
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== JSON_TYPE) {
      return send(res, 415, { error: `Content-Type must be ${JSON_TYPE}, got "${type ?? ''}"` });
    }
    let decoded: unknown;
    try {
      decoded = JSON.parse(body.toString('utf8'));
    } catch (err) {
      return send(res, 400, { error: `the body is not JSON: ${(err as Error).message}` });
    }
    const outcome = answerReview(decoded, this.options.validate, this.validated);
    if (!outcome.ok) return send(res, 400, { error: outcome.message });
    const r = outcome.response;
    this.log.debug('webhook: reviewed', { uid: r.uid, allowed: r.allowed, reason: r.status?.message });
    send(res, 200, outcome.review);
  }
}

/** The whole body, or undefined as soon as it (or its announced length) exceeds MAX_BODY (reading stops). */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length'] ?? '0') > MAX_BODY) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
      else {
        req.off('data', onData);
        req.pause();
        resolve(undefined);
      }
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
