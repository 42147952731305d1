import { constants, type Http2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type * as grpc from '@grpc/grpc-js';
import type { Clock } from '../util/clock.ts';
import type { RdsLimits } from './limits.ts';

/**
 * HTTP/2 keepalive enforcement, as gRPC C-core servers do it
 * (https://github.com/grpc/proposal/blob/master/A8-client-side-keepalive.md#server-enforcement): a PING received
 * sooner than `minPingIntervalMs` after the previous one is a strike; after `maxPingStrikes` strikes the
 * connection gets GOAWAY ENHANCE_YOUR_CALM with debug data `too_many_pings` and is closed.
 *
 * grpc-js (1.14) accepts the option names but does not enforce them on servers, and exposes no session hook, so
 * this reads the HTTP/2 servers a bound grpc-js Server keeps (`http2Servers`, internal). If that field ever
 * disappears, `attach` returns false and the server start fails loudly (RdsServer checks it); the ping flood
 * test in test/xds-rds/hardening.test.ts covers it.
 */
export function attachPingGuard(
  server: grpc.Server,
  limits: Pick<RdsLimits, 'minPingIntervalMs' | 'maxPingStrikes'>,
  clock: Clock,
  onStrikeOut: (session: Http2Session) => void,
): boolean {
  const servers = (server as unknown as { http2Servers?: Map<NodeJS.EventEmitter, unknown> }).http2Servers;
  if (!(servers instanceof Map) || servers.size === 0) return false;
  for (const http2Server of servers.keys()) {
    http2Server.on('session', (session: Http2Session) => guardSession(session, limits, clock, onStrikeOut));
  }
  return true;
}

function guardSession(
  session: Http2Session,
  limits: Pick<RdsLimits, 'minPingIntervalMs' | 'maxPingStrikes'>,
  clock: Clock,
  onStrikeOut: (session: Http2Session) => void,
): void {
  let last: number | undefined;
  let strikes = 0;
  let out = false;
  session.on('ping', () => {
    const now = clock.now();
    if (last !== undefined && now - last < limits.minPingIntervalMs) strikes++;
    last = now;
    if (out || strikes <= limits.maxPingStrikes || session.destroyed) return;
    out = true;
    onStrikeOut(session);
    session.goaway(constants.NGHTTP2_ENHANCE_YOUR_CALM, 0, Buffer.from('too_many_pings'));
    setImmediate(() => session.destroy());
  });
}

/** The verified client certificate of an HTTP/2 session over TLS (undefined on plaintext). */
export function sessionPeerCertificate(
  session: Http2Session,
): ReturnType<TLSSocket['getPeerCertificate']> | undefined {
  const socket = session.socket as Partial<TLSSocket>;
  return typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
}
