/** Options of `aeraki routes` (the RDS watch client), same row table as the other commands. */
import type { Command } from 'commander';
import type { ListenAddress } from '../src/util/address.ts';
import {
  parseAddress,
  parseBoolean,
  parseCount,
  parseDurationMs,
  parseOutputFormat,
  showAddress,
  text,
} from './parsers.ts';
import { ConfigError, resolveConfig, type Env, type RowTable } from './rows.ts';

export interface RoutesOptions {
  readonly rdsAddress: ListenAddress;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  readonly insecure: boolean;
  readonly serverName: string;
  /** Verify the server by this SPIFFE ID ('' = by its name). */
  readonly serverSpiffeId: string;
  /** Exit after this many responses (0: watch until interrupted). */
  readonly count: number;
  /** Print the first answer and exit (`--count 1`). */
  readonly once: boolean;
  /**
   * With `--once` or `--count`: exit 1 when no name is served within this time. While watching: the delay of the
   * notice that none is served yet.
   */
  readonly timeoutMs: number;
  /** DeltaRoutes instead of StreamRoutes. */
  readonly delta: boolean;
  readonly output: 'json' | 'yaml';
}

export const ROUTES_ROWS: RowTable<RoutesOptions> = {
  rdsAddress: {
    flag: '--rds-address <host:port>',
    env: 'AERAKI_RDS_ADDRESS',
    default: { host: '127.0.0.1', port: 15010 },
    description: 'RDS server to watch',
    parse: parseAddress,
    format: showAddress,
  },
  ca: {
    flag: '--ca <file>',
    default: '',
    description: 'CA that signed the server certificate (PEM)',
    parse: text,
  },
  cert: { flag: '--cert <file>', default: '', description: 'client certificate (PEM)', parse: text },
  key: { flag: '--key <file>', default: '', description: 'client key (PEM)', parse: text },
  insecure: {
    flag: '--insecure',
    default: false,
    description: 'plaintext (server run with --rds-insecure)',
    parse: parseBoolean,
  },
  serverName: {
    flag: '--server-name <name>',
    default: '',
    description: 'TLS server name to verify',
    parse: text,
  },
  serverSpiffeId: {
    flag: '--server-spiffe-id <id>',
    default: '',
    description:
      'verify the server by this SPIFFE URI SAN instead of its name (a certificate from istiod, e.g. spiffe://cluster.local/ns/istio-system/sa/aeraki)',
    parse: text,
  },
  count: {
    flag: '--count <n>',
    default: 0,
    description: 'exit after n responses (0: until interrupted)',
    parse: parseCount,
  },
  once: {
    flag: '--once',
    default: false,
    description:
      'print the first answer and exit (for scripts; exit 1 when no name is served within --timeout)',
    parse: parseBoolean,
  },
  timeoutMs: {
    flag: '--timeout <duration>',
    default: 10_000,
    description:
      'with --once or --count: give up (exit 1) when none of the names is served within this time; watching: say so after it',
    parse: parseDurationMs,
  },
  delta: {
    flag: '--delta',
    default: false,
    description: 'use the incremental protocol (DeltaRoutes) instead of state of the world',
    parse: parseBoolean,
  },
  output: {
    flag: '-o, --output <format>',
    default: 'json',
    description: 'output format: json or yaml (one document per answer)',
    parse: parseOutputFormat,
  },
};

export function routesConfig(command: Command, env: Env): RoutesOptions {
  const c = resolveConfig(ROUTES_ROWS, command, env);
  if (!c.insecure && (c.ca === '' || c.cert === '' || c.key === '')) {
    throw new ConfigError('--ca, --cert and --key are required (or --insecure)');
  }
  return c;
}
