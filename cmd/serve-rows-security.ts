/** `aeraki serve` options of who may read routes, the debug endpoints and the limits against bad clients. */
import { DEFAULT_RDS_LIMITS } from '../src/xds-rds/limits.ts';
import { DEFAULT_HANDSHAKE_LIMITS } from '../src/util/handshake-guard.ts';
import { DEFAULT_HTTP_LIMITS } from '../src/util/http-limits.ts';
import {
  parseBoolean,
  parseByteSize,
  parseCount,
  parseDomain,
  parseDurationMs,
  parseLoopbackDefault,
  parseNamespace,
  showAddress,
  splitList,
} from './parsers.ts';
import type { RowTable } from './rows.ts';
import type { ServeFlags } from './serve-flags.ts';

const L = DEFAULT_RDS_LIMITS;

export const SECURITY_ROWS = {
  trustDomain: {
    flag: '--trust-domain <domain>',
    env: 'AERAKI_TRUST_DOMAIN',
    default: 'cluster.local',
    description: "the mesh trust domain (the controller's identity; RDS clients need a SPIFFE id in it)",
    parse: parseDomain,
  },
  trustDomainAliases: {
    flag: '--trust-domain-aliases <domains>',
    env: 'AERAKI_TRUST_DOMAIN_ALIASES',
    default: [],
    description: 'comma-separated trust domains also accepted for RDS clients',
    parse: splitList(parseDomain),
  },
  rdsAllowedNamespaces: {
    flag: '--rds-allowed-namespaces <namespaces>',
    env: 'AERAKI_RDS_ALLOWED_NAMESPACES',
    default: [],
    description: 'comma-separated namespaces whose workloads may read routes (default: every namespace)',
    parse: splitList(parseNamespace),
  },
  debugEndpoints: {
    flag: '--debug-endpoints [bool]',
    env: 'AERAKI_DEBUG_ENDPOINTS',
    default: false,
    description: 'serve /debug/config /debug/envoyfilters /debug/routes on --debug-address',
    parse: parseBoolean,
  },
  debugAddress: {
    flag: '--debug-address <host:port>',
    env: 'AERAKI_DEBUG_ADDRESS',
    default: { host: '127.0.0.1', port: 15090 },
    description: 'listen address of /debug/* (loopback unless another host is named)',
    parse: parseLoopbackDefault,
    format: showAddress,
  },
  rdsMaxReceiveBytes: {
    flag: '--rds-max-receive-size <bytes>',
    env: 'AERAKI_RDS_MAX_RECEIVE_SIZE',
    default: L.maxReceiveBytes,
    description: 'largest RDS request message (bytes, or with a unit: 512KiB, 4MiB)',
    parse: parseByteSize,
  },
  rdsMaxStreamsPerConnection: {
    flag: '--rds-max-streams-per-connection <n>',
    env: 'AERAKI_RDS_MAX_STREAMS_PER_CONNECTION',
    default: L.maxStreamsPerConnection,
    description: 'concurrent RDS streams on one connection (HTTP/2 MAX_CONCURRENT_STREAMS)',
    parse: parseCount,
  },
  rdsMinPingIntervalMs: {
    flag: '--rds-min-ping-interval <duration>',
    env: 'AERAKI_RDS_MIN_PING_INTERVAL',
    default: L.minPingIntervalMs,
    description: 'client pings closer together than this are strikes',
    parse: parseDurationMs,
  },
  rdsMaxPingStrikes: {
    flag: '--rds-max-ping-strikes <n>',
    env: 'AERAKI_RDS_MAX_PING_STRIKES',
    default: L.maxPingStrikes,
    description: 'strikes after which a connection is closed (GOAWAY too_many_pings)',
    parse: parseCount,
  },
  rdsMaxInvalidRequests: {
    flag: '--rds-max-invalid-requests <n>',
    env: 'AERAKI_RDS_MAX_INVALID_REQUESTS',
    default: L.maxInvalidRequestsPerConnection,
    description: 'streams refused as invalid after which a connection is closed (GOAWAY invalid_requests)',
    parse: parseCount,
  },
  rdsMaxConnectionsPerIdentity: {
    flag: '--rds-max-connections-per-identity <n>',
    env: 'AERAKI_RDS_MAX_CONNECTIONS_PER_IDENTITY',
    default: L.maxConnectionsPerIdentity,
    description: 'RDS connections one client identity (service account) may hold',
    parse: parseCount,
  },
  rdsIdleStreamTimeoutMs: {
    flag: '--rds-idle-stream-timeout <duration>',
    env: 'AERAKI_RDS_IDLE_STREAM_TIMEOUT',
    default: L.idleStreamTimeoutMs,
    description: 'an RDS stream that sends no request for this long after opening is ended (0: never)',
    parse: parseDurationMs,
  },
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
} satisfies Partial<RowTable<ServeFlags>>;
