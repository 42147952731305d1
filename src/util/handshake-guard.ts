/**
 * Bounds the connections of a listener that have not finished their handshake: each must finish within
 * `timeoutMs` of its TCP accept or is closed (`timeout`); at most `maxPendingPerSource` from one source (the
 * remote address, source-address.ts) may be in that state at once, and a connection from a source already there is
 * closed at once (`rejected_source_limit`); at most `maxPending` in all. When all of those are taken, a connection
 * from a source holding fewer than the busiest source has the busiest source's oldest pending connection closed to
 * make room (`evicted`: the slots are shared fairly, so many sources flooding together cannot starve a newcomer
 * either); otherwise it is closed at once (`rejected_over_limit`). Node's own TLS handshake timeout is 120 s and
 * nothing caps the count, so idle TCP connections would otherwise hold sockets and memory.
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
import { sourceOf } from './source-address.ts';

export interface HandshakeLimits {
  /** A connection must finish its handshake within this long of being accepted, ms (0: no timeout). */
  readonly timeoutMs: number;
  /** Connections of one listener allowed in their handshake at once (0: no cap). */
  readonly maxPending: number;
  /** Connections of one listener from one source (source-address.ts) in their handshake at once (0: no cap). */
  readonly maxPendingPerSource: number;
}

/**
 * 64 per source is far above what a real client holds at once: a sidecar or istiod opens one connection at a time
 * (a few while reconnecting), and the API server's webhook calls and a node's pods finish their handshakes in
 * milliseconds; so one source can take at most 1/16 of the global 1024. This counts real client addresses because
 * the controller runs without a sidecar (manifests/deployment.yaml `sidecar.istio.io/inject: 'false'`); behind
 * one, every inbound connection would come from 127.0.0.6 (istio/istio
 * pilot/pkg/networking/core/v1alpha3/listener_address.go `InboundPassthroughBindIpv4`, commit 4f125a09) and this
 * cap would have to be 0.
 */
export const DEFAULT_HANDSHAKE_LIMITS: HandshakeLimits = {
  timeoutMs: 10_000,
  maxPending: 1024,
  maxPendingPerSource: 64,
};

/** How a handshake ended: the `result` label of `aeraki_tls_handshakes_total`. */
export type HandshakeResult =
  'completed' | 'failed' | 'timeout' | 'rejected_over_limit' | 'rejected_source_limit' | 'evicted';

export const HANDSHAKE_RESULTS: readonly HandshakeResult[] = [
  'completed',
  'failed',
  'timeout',
  'rejected_over_limit',
  'rejected_source_limit',
  'evicted',
];

export interface HandshakeStats {
  /** The listener's name (`rds`, `mcp`, `webhook`): the `listener` label. */
  readonly listener: string;
  /** Connections in their handshake now. */
  readonly pending: number;
  /** Sources with a connection in its handshake now. */
  readonly sources: number;
  /** Cumulative, by result. */
  readonly results: Readonly<Record<HandshakeResult, number>>;
}

interface Pending {
  readonly key: string;
  readonly socket: Socket;
  readonly source: Source;
  timer: TimerHandle | undefined;
}

/** One source's connections in their handshake, oldest first. */
interface Source {
  readonly name: string;
  readonly pending: Set<Pending>;
  /** Its cap was logged since it last had no pending connection. */
  warned: boolean;
}

function keyOf(s: { remoteAddress?: string | undefined; remotePort?: number | undefined }): string {
  return `${s.remoteAddress ?? ''}:${s.remotePort ?? 0}`;
}

export class HandshakeGuard {
  private readonly pending = new Map<string, Pending>();
  private readonly sources = new Map<string, Source>();
  private readonly counts = Object.fromEntries(HANDSHAKE_RESULTS.map((r) => [r, 0])) as Record<
    HandshakeResult,
    number
  >;
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
    return {
      listener: this.listener,
      pending: this.pending.size,
      sources: this.sources.size,
      results: { ...this.counts },
    };
  }

  /** Connections in their handshake now, by source (source-address.ts). */
  pendingBySource(): Map<string, number> {
    return new Map([...this.sources].map(([name, s]) => [name, s.pending.size]));
  }

  /** Closes every connection still in its handshake (the listener is stopping). */
  close(): void {
    for (const p of [...this.pending.values()]) p.socket.destroy();
  }

  private accepted(socket: Socket): void {
    const { maxPending, maxPendingPerSource, timeoutMs } = this.limits;
    const name = sourceOf(socket.remoteAddress);
    const source = this.sources.get(name) ?? { name, pending: new Set<Pending>(), warned: false };
    if (maxPendingPerSource > 0 && source.pending.size >= maxPendingPerSource) {
      this.refuseFromSource(socket, source);
      return;
    }
    if (maxPending > 0 && this.pending.size >= maxPending && !this.evictForNewcomer(source)) {
      this.refuseOverLimit(socket);
      return;
    }
    const entry: Pending = { key: keyOf(socket), socket, source, timer: undefined };
    this.pending.set(entry.key, entry);
    source.pending.add(entry);
    this.sources.set(name, source);
    if (timeoutMs > 0) {
      entry.timer = this.clock.setTimeout(() => {
        entry.timer = undefined;
        if (this.finish(entry, 'timeout')) socket.destroy();
      }, timeoutMs);
    }
    socket.once('close', () => this.finish(entry, 'failed'));
  }

  private refuseFromSource(socket: Socket, source: Source): void {
    this.counts.rejected_source_limit++;
    if (!source.warned) {
      source.warned = true;
      const { maxPendingPerSource } = this.limits;
      this.logger.warn(
        `${this.listener}: ${maxPendingPerSource} connections from ${source.name} in their handshake; closing new ones from it`,
        { listener: this.listener, source: source.name, maxPendingPerSource },
      );
    }
    socket.destroy();
  }

  private refuseOverLimit(socket: Socket): void {
    this.counts.rejected_over_limit++;
    if (!this.overLimit) {
      this.overLimit = true;
      const { maxPending } = this.limits;
      this.logger.warn(`${this.listener}: ${maxPending} connections in their handshake; closing new ones`, {
        listener: this.listener,
        maxPending,
      });
    }
    socket.destroy();
  }

  /**
   * All slots are taken and `newcomer` asks for one: closes the oldest pending connection of the busiest source
   * when that source holds at least two more than `newcomer` (so the exchange makes the shares more even, never
   * just swaps them); false when no source does.
   */
  private evictForNewcomer(newcomer: Source): boolean {
    let busiest: Source | undefined;
    for (const s of this.sources.values()) {
      if (!busiest || s.pending.size > busiest.pending.size) busiest = s;
    }
    if (!busiest || busiest.pending.size < newcomer.pending.size + 2) return false;
    const oldest = busiest.pending.values().next().value as Pending;
    this.finish(oldest, 'evicted');
    oldest.socket.destroy();
    return true;
  }

  private done(key: string): void {
    const entry = this.pending.get(key);
    if (entry) this.finish(entry, 'completed');
  }

  /** Ends the pending state of `entry` with `result`; false when it had already ended. */
  private finish(entry: Pending, result: HandshakeResult): boolean {
    if (this.pending.get(entry.key) !== entry) return false;
    this.pending.delete(entry.key);
    entry.source.pending.delete(entry);
    if (entry.source.pending.size === 0) this.sources.delete(entry.source.name);
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
