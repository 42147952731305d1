/**
 * Bounds the connections of a listener that have not finished their handshake: each must finish within
 * `timeoutMs` of its TCP accept or is closed (`timeout`), and at most `maxPending` may be in that state at once; a
 * connection accepted beyond that is closed at once (`rejected_over_limit`). Node's own TLS handshake timeout is
 * 120 s and nothing caps the count, so idle TCP connections would otherwise hold sockets and memory.
 *
 * What "finished" means depends on the listener:
 * - `attachTls` (node:https, node:tls): the TLS handshake (`secureConnection`);
 * - `attachHttp2` (the HTTP/2 servers inside a grpc-js Server, TLS or plaintext): the client's first HTTP/2
 *   SETTINGS frame, i.e. the TLS handshake and the HTTP/2 connection preface both.
 *
 * Connections are matched to their handshake by remote `address:port`. Timers run on the injected Clock.
 * Contract: `stats()` is cheap and safe at scrape time; counts are cumulative from construction.
 */
import type { Http2Session } from 'node:http2';
import type { Server, Socket } from 'node:net';
import { systemClock, type Clock, type TimerHandle } from './clock.ts';
import type { Logger } from './logger.ts';

export interface HandshakeLimits {
  /** A connection must finish its handshake within this long of being accepted, ms (0: no timeout). */
  readonly timeoutMs: number;
  /** Connections of one listener allowed in their handshake at once (0: no cap). */
  readonly maxPending: number;
}

export const DEFAULT_HANDSHAKE_LIMITS: HandshakeLimits = { timeoutMs: 10_000, maxPending: 1024 };

/** How a handshake ended: the `result` label of `aeraki_tls_handshakes_total`. */
export type HandshakeResult = 'completed' | 'failed' | 'timeout' | 'rejected_over_limit';

export const HANDSHAKE_RESULTS: readonly HandshakeResult[] = [
  'completed',
  'failed',
  'timeout',
  'rejected_over_limit',
];

export interface HandshakeStats {
  /** The listener's name (`rds`, `mcp`, `webhook`): the `listener` label. */
  readonly listener: string;
  /** Connections in their handshake now. */
  readonly pending: number;
  /** Cumulative, by result. */
  readonly results: Readonly<Record<HandshakeResult, number>>;
}

interface Pending {
  readonly socket: Socket;
  timer: TimerHandle | undefined;
}

function keyOf(s: { remoteAddress?: string | undefined; remotePort?: number | undefined }): string {
  return `${s.remoteAddress ?? ''}:${s.remotePort ?? 0}`;
}

export class HandshakeGuard {
  private readonly pending = new Map<string, Pending>();
  private readonly counts: Record<HandshakeResult, number> = {
    completed: 0,
    failed: 0,
    timeout: 0,
    rejected_over_limit: 0,
  };
  private overLimit = false;

  constructor(
    readonly listener: string,
    private readonly limits: HandshakeLimits,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Guards a node:tls or node:https server: done at `secureConnection`. */
  attachTls(server: Server): void {
    server.on('connection', (socket: Socket) => this.accepted(socket));
    server.on('secureConnection', (socket: Socket) => this.done(keyOf(socket)));
  }

  /** Guards an HTTP/2 server (plaintext or TLS): done at the client's first SETTINGS frame. */
  attachHttp2(server: Server): void {
    server.on('connection', (socket: Socket) => this.accepted(socket));
    server.on('session', (session: Http2Session) => {
      const key = keyOf(session.socket);
      session.once('remoteSettings', () => this.done(key));
    });
  }

  stats(): HandshakeStats {
    return { listener: this.listener, pending: this.pending.size, results: { ...this.counts } };
  }

  /** Closes every connection still in its handshake (the listener is stopping). */
  close(): void {
    for (const p of [...this.pending.values()]) p.socket.destroy();
  }

  private accepted(socket: Socket): void {
    const { maxPending, timeoutMs } = this.limits;
    if (maxPending > 0 && this.pending.size >= maxPending) {
      this.counts.rejected_over_limit++;
      if (!this.overLimit) {
        this.overLimit = true;
        this.logger.warn(`${this.listener}: ${maxPending} connections in their handshake; closing new ones`, {
          listener: this.listener,
          maxPending,
        });
      }
      socket.destroy();
      return;
    }
    const key = keyOf(socket);
    const entry: Pending = { socket, timer: undefined };
    this.pending.set(key, entry);
    if (timeoutMs > 0) {
      entry.timer = this.clock.setTimeout(() => {
        entry.timer = undefined;
        if (this.finish(key, entry, 'timeout')) socket.destroy();
      }, timeoutMs);
    }
    socket.once('close', () => this.finish(key, entry, 'failed'));
  }

  private done(key: string): void {
    const entry = this.pending.get(key);
    if (entry) this.finish(key, entry, 'completed');
  }

  /** Ends the pending state of `entry` with `result`; false when it had already ended. */
  private finish(key: string, entry: Pending, result: HandshakeResult): boolean {
    if (this.pending.get(key) !== entry) return false;
    this.pending.delete(key);
    if (entry.timer) this.clock.clearTimeout(entry.timer);
    this.counts[result]++;
    if (this.overLimit && this.pending.size < this.limits.maxPending / 2) this.overLimit = false;
    return true;
  }
}

/**
 * The HTTP/2 servers a bound grpc-js Server keeps (`http2Servers`, internal: grpc-js offers no socket hook);
 * undefined when that field is not as expected, so callers can fail loudly instead of running unguarded.
 */
export function grpcHttp2Servers(server: object): Server[] | undefined {
  const servers = (server as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map) || servers.size === 0) return undefined;
  return [...(servers as Map<Server, unknown>).keys()];
}
