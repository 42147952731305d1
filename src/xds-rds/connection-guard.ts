import { constants, type Http2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type * as grpc from '@grpc/grpc-js';
import type { Clock } from '../util/clock.ts';
import { grpcHttp2Servers } from '../util/handshake-guard.ts';
import type { RdsLimits } from './limits.ts';

type GuardLimits = Pick<
  RdsLimits,
  'minPingIntervalMs' | 'maxPingStrikes' | 'maxInvalidRequestsPerConnection'
>;

/** Why a connection was closed: the `reason` label of `aeraki_rds_refused_total`. */
export type CloseReason = 'too_many_pings' | 'invalid_requests';

/** The key of a connection: `<remote address>:<remote port>`, as grpc-js's `call.getPeer()` writes it. */
function connectionKey(remote: { remoteAddress?: string; remotePort?: number }): string {
  return `${remote.remoteAddress ?? ''}:${remote.remotePort ?? 0}`;
}

/**
 * Closes misbehaving HTTP/2 connections of a grpc-js server with GOAWAY ENHANCE_YOUR_CALM:
 * - keepalive enforcement, as gRPC C-core servers do it
 *   (https://github.com/grpc/proposal/blob/master/A8-client-side-keepalive.md#server-enforcement): a PING sooner
 *   than `minPingIntervalMs` after the previous one is a strike; past `maxPingStrikes` the connection is closed
 *   with debug data `too_many_pings`;
 * - a connection whose streams were refused as invalid (INVALID_ARGUMENT) more than
 *   `maxInvalidRequestsPerConnection` times is closed with `invalid_requests`, so a client looping on bad
 *   requests pays a reconnect (and its backoff) instead of a cheap new stream each time.
 *
 * grpc-js (1.14) accepts the ping option names but does not enforce them on servers, and exposes no session
 * hook, so `attach` reads the HTTP/2 servers a bound grpc-js Server keeps (grpcHttp2Servers). If that
 * field ever disappears, `attach` returns false and RdsServer's start fails loudly; the ping flood test in
 * test/xds-rds/hardening.test.ts covers it.
 */
export class ConnectionGuard {
  private readonly sessions = new Map<string, { session: Http2Session; invalid: number; closed: boolean }>();

  constructor(
    private readonly limits: GuardLimits,
    private readonly clock: Clock,
    private readonly onClose: (session: Http2Session, reason: CloseReason) => void,
  ) {}

  /** Hooks the sessions of a bound grpc-js server; false when its internals are not as expected. */
  attach(server: grpc.Server): boolean {
    const servers = grpcHttp2Servers(server);
    if (!servers) return false;
    for (const http2Server of servers) {
      http2Server.on('session', (session: Http2Session) => this.track(session));
    }
    return true;
  }

  /** Records an invalid request on the connection `key` (connectionKey); may close it. */
  invalidRequest(key: string): void {
    const s = this.sessions.get(key);
    if (!s) return;
    s.invalid++;
    if (s.invalid > this.limits.maxInvalidRequestsPerConnection) this.close(s, 'invalid_requests');
  }

  private track(session: Http2Session): void {
    const key = connectionKey(session.socket);
    const entry = { session, invalid: 0, closed: false };
    this.sessions.set(key, entry);
    session.once('close', () => {
      if (this.sessions.get(key) === entry) this.sessions.delete(key);
    });
    let last: number | undefined;
    let strikes = 0;
    session.on('ping', () => {
      const now = this.clock.now();
      if (last !== undefined && now - last < this.limits.minPingIntervalMs) strikes++;
      last = now;
      if (strikes > this.limits.maxPingStrikes) this.close(entry, 'too_many_pings');
    });
  }

  private close(entry: { session: Http2Session; closed: boolean }, reason: CloseReason): void {
    if (entry.closed || entry.session.destroyed) return;
    entry.closed = true;
    this.onClose(entry.session, reason);
    entry.session.goaway(constants.NGHTTP2_ENHANCE_YOUR_CALM, 0, Buffer.from(reason));
    setImmediate(() => entry.session.destroy());
  }
}

/** The verified client certificate of an HTTP/2 session over TLS (undefined on plaintext). */
export function sessionPeerCertificate(
  session: Http2Session,
): ReturnType<TLSSocket['getPeerCertificate']> | undefined {
  const socket = session.socket as Partial<TLSSocket>;
  return typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
}
