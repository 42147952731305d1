/**
 * `aeraki serve` options every listener of a kind shares: the TLS handshake limits (RDS, MCP server, webhook) and
 * the HTTP request timeouts (admin, webhook).
 */
import type { ServeOptions } from '../src/app/options.ts';
import { DEFAULT_HANDSHAKE_LIMITS } from '../src/util/handshake-guard.ts';
import { DEFAULT_HTTP_LIMITS } from '../src/util/http-limits.ts';
import { parseCount, parseDurationMs } from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface ListenerFlags {
  readonly tlsHandshakeTimeoutMs: number;
  readonly tlsMaxPendingHandshakes: number;
  readonly tlsMaxPendingHandshakesPerSource: number;
  readonly httpHeadersTimeoutMs: number;
  readonly httpRequestTimeoutMs: number;
}

export const LISTENER_ROWS = {
  tlsHandshakeTimeoutMs: {
    flag: '--tls-handshake-timeout <duration>',
    env: 'AERAKI_TLS_HANDSHAKE_TIMEOUT',
    default: DEFAULT_HANDSHAKE_LIMITS.timeoutMs,
    description:
      'RDS, MCP server and webhook: a connection must finish its handshake within this time (0: no limit)',
    parse: parseDurationMs,
  },
  tlsMaxPendingHandshakes: {
    flag: '--tls-max-pending-handshakes <n>',
    env: 'AERAKI_TLS_MAX_PENDING_HANDSHAKES',
    default: DEFAULT_HANDSHAKE_LIMITS.maxPending,
    description:
      'RDS, MCP server and webhook: connections in their handshake at once, per listener (0: no cap)',
    parse: parseCount,
  },
  tlsMaxPendingHandshakesPerSource: {
    flag: '--tls-max-pending-handshakes-per-source <n>',
    env: 'AERAKI_TLS_MAX_PENDING_HANDSHAKES_PER_SOURCE',
    default: DEFAULT_HANDSHAKE_LIMITS.maxPendingPerSource,
    description:
      'RDS, MCP server and webhook: connections in their handshake at once from one source address (an IPv6 /64), per listener (0: no cap)',
    parse: parseCount,
  },
  httpHeadersTimeoutMs: {
    flag: '--http-headers-timeout <duration>',
    env: 'AERAKI_HTTP_HEADERS_TIMEOUT',
    default: DEFAULT_HTTP_LIMITS.headersTimeoutMs,
    description: 'admin and webhook servers: a client must send its request headers within this time',
    parse: parseDurationMs,
  },
  httpRequestTimeoutMs: {
    flag: '--http-request-timeout <duration>',
    env: 'AERAKI_HTTP_REQUEST_TIMEOUT',
    default: DEFAULT_HTTP_LIMITS.requestTimeoutMs,
    description: 'admin and webhook servers: a client must send its whole request within this time',
    parse: parseDurationMs,
  },
} satisfies RowTable<ListenerFlags>;

export function handshakeOptions(f: ListenerFlags): ServeOptions['handshake'] {
  return {
    timeoutMs: f.tlsHandshakeTimeoutMs,
    maxPending: f.tlsMaxPendingHandshakes,
    maxPendingPerSource: f.tlsMaxPendingHandshakesPerSource,
  };
}

export function httpLimitOptions(f: ListenerFlags): ServeOptions['httpLimits'] {
  return { headersTimeoutMs: f.httpHeadersTimeoutMs, requestTimeoutMs: f.httpRequestTimeoutMs };
}
