/** `aeraki serve` options of the RDS server: where it listens, who may read routes, its debounce and its limits. */
import type { RdsOptions } from '../src/app/options.ts';
import type { ListenAddress } from '../src/util/address.ts';
import { DEFAULT_RDS_LIMITS } from '../src/xds-rds/limits.ts';
import {
  parseBoolean,
  parseNamespace,
  parseCount,
  showAddress,
  parseRdsAddress,
  parseDurationMs,
  splitList,
  parseByteSize,
} from './parsers.ts';
import type { RowTable } from './rows.ts';

const L = DEFAULT_RDS_LIMITS;

export interface RdsFlags {
  readonly rdsAddress: ListenAddress;
  readonly rdsInsecure: boolean;
  readonly rdsAllowedNamespaces: readonly string[];
  readonly rdsDebounceAfterMs: number;
  readonly rdsDebounceMaxMs: number;
  readonly rdsMaxReceiveBytes: number;
  readonly rdsMaxStreamsPerConnection: number;
  readonly rdsMinPingIntervalMs: number;
  readonly rdsMaxPingStrikes: number;
  readonly rdsMaxInvalidRequests: number;
  readonly rdsMaxConnectionsPerIdentity: number;
  readonly rdsIdleStreamTimeoutMs: number;
  readonly rdsMaxRouteNameBytes: number;
  readonly rdsMaxRouteNamesPerStream: number;
  readonly rdsMaxRouteNameBytesPerConnection: number;
  readonly rdsMaxRouteNameBytesPerIdentity: number;
  readonly rdsMaxInFlightBytesPerIdentity: number;
}

export const RDS_ROWS = {
  rdsAddress: {
    flag: '--rds-address <host:port>',
    env: 'AERAKI_XDS_PORT',
    default: { host: '0.0.0.0', port: 15010 },
    description: 'RDS (gRPC) listen address',
    parse: parseRdsAddress,
    format: showAddress,
  },
  rdsInsecure: {
    flag: '--rds-insecure [bool]',
    env: 'AERAKI_RDS_INSECURE',
    default: false,
    description: 'serve RDS without TLS (development only)',
    parse: parseBoolean,
  },
  rdsAllowedNamespaces: {
    flag: '--rds-allowed-namespaces <namespaces>',
    env: 'AERAKI_RDS_ALLOWED_NAMESPACES',
    default: [],
    description: 'comma-separated namespaces whose workloads may read routes (default: every namespace)',
    parse: splitList(parseNamespace),
  },
  rdsDebounceAfterMs: {
    flag: '--rds-debounce-after <duration>',
    env: 'AERAKI_RDS_DEBOUNCE_AFTER',
    default: 100,
    description: 'RDS route rebuild: quiet period',
    parse: parseDurationMs,
  },
  rdsDebounceMaxMs: {
    flag: '--rds-debounce-max <duration>',
    env: 'AERAKI_RDS_DEBOUNCE_MAX',
    default: 1000,
    description: 'RDS route rebuild: maximum delay',
    parse: parseDurationMs,
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
  rdsMaxRouteNameBytes: {
    flag: '--rds-max-route-name-bytes <bytes>',
    env: 'AERAKI_RDS_MAX_ROUTE_NAME_BYTES',
    default: L.maxRouteNameBytes,
    description: 'longest route name an RDS stream may name (0: no limit)',
    parse: parseByteSize,
  },
  rdsMaxRouteNamesPerStream: {
    flag: '--rds-max-route-names-per-stream <n>',
    env: 'AERAKI_RDS_MAX_ROUTE_NAMES_PER_STREAM',
    default: L.maxRouteNamesPerStream,
    description: 'route names one RDS stream may subscribe to (0: no limit)',
    parse: parseCount,
  },
  rdsMaxRouteNameBytesPerConnection: {
    flag: '--rds-max-route-name-bytes-per-connection <bytes>',
    env: 'AERAKI_RDS_MAX_ROUTE_NAME_BYTES_PER_CONNECTION',
    default: L.maxRouteNameBytesPerConnection,
    description:
      'bytes of route names (each plus 256) the RDS streams of one connection may subscribe to (0: no limit)',
    parse: parseByteSize,
  },
  rdsMaxRouteNameBytesPerIdentity: {
    flag: '--rds-max-route-name-bytes-per-identity <bytes>',
    env: 'AERAKI_RDS_MAX_ROUTE_NAME_BYTES_PER_IDENTITY',
    default: L.maxRouteNameBytesPerIdentity,
    description: 'as per connection, over every connection of one client identity (0: no limit)',
    parse: parseByteSize,
  },
  rdsMaxInFlightBytesPerIdentity: {
    flag: '--rds-max-in-flight-bytes-per-identity <bytes>',
    env: 'AERAKI_RDS_MAX_IN_FLIGHT_BYTES_PER_IDENTITY',
    default: L.maxInFlightBytesPerIdentity,
    description:
      'bytes of unfinished request messages the RDS streams of one client identity may have in flight (0: no limit)',
    parse: parseByteSize,
  },
} satisfies RowTable<RdsFlags>;

export function rdsOptions(f: RdsFlags): RdsOptions {
  return {
    address: f.rdsAddress,
    insecure: f.rdsInsecure,
    allowedNamespaces: f.rdsAllowedNamespaces,
    debounceAfterMs: f.rdsDebounceAfterMs,
    debounceMaxMs: f.rdsDebounceMaxMs,
    maxReceiveBytes: f.rdsMaxReceiveBytes,
    maxStreamsPerConnection: f.rdsMaxStreamsPerConnection,
    minPingIntervalMs: f.rdsMinPingIntervalMs,
    maxPingStrikes: f.rdsMaxPingStrikes,
    maxInvalidRequests: f.rdsMaxInvalidRequests,
    maxConnectionsPerIdentity: f.rdsMaxConnectionsPerIdentity,
    idleStreamTimeoutMs: f.rdsIdleStreamTimeoutMs,
    maxRouteNameBytes: f.rdsMaxRouteNameBytes,
    maxRouteNamesPerStream: f.rdsMaxRouteNamesPerStream,
    maxRouteNameBytesPerConnection: f.rdsMaxRouteNameBytesPerConnection,
    maxRouteNameBytesPerIdentity: f.rdsMaxRouteNameBytesPerIdentity,
    maxInFlightBytesPerIdentity: f.rdsMaxInFlightBytesPerIdentity,
  };
}
