/** Options of `aeraki routes` (the RDS watch client), same row table as the other commands. */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { ConfigError, parseBoolean, resolveConfig, type ConfigRow } from './config.ts';
import { parseAddress } from './parsers.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- heterogeneous table, typed per row
type AnyRow = ConfigRow<any>;

export interface RoutesOptions {
  readonly rdsAddress: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  readonly insecure: boolean;
  readonly serverName: string;
  /** Exit after this many responses (0: watch until interrupted). */
  readonly count: number;
}

const text = (raw: string) => raw;

function parseCount(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new InvalidArgumentError(`expected a whole number, got "${raw}"`);
  return Number(raw);
}

export const ROUTES_ROWS: readonly AnyRow[] = [
  {
    key: 'rdsAddress',
    flag: '--rds-address <host:port>',
    env: 'AERAKI_RDS_ADDRESS',
    default: '127.0.0.1:15010',
    description: 'RDS server to watch',
    parse: parseAddress,
  } satisfies ConfigRow<string>,
  {
    key: 'ca',
    flag: '--ca <file>',
    default: '',
    description: 'CA that signed the server certificate (PEM)',
    parse: text,
  } satisfies ConfigRow<string>,
  {
    key: 'cert',
    flag: '--cert <file>',
    default: '',
    description: 'client certificate (PEM)',
    parse: text,
  } satisfies ConfigRow<string>,
  {
    key: 'key',
    flag: '--key <file>',
    default: '',
    description: 'client key (PEM)',
    parse: text,
  } satisfies ConfigRow<string>,
  {
    key: 'insecure',
    flag: '--insecure [bool]',
    default: false,
    description: 'plaintext (server run with --rds-insecure)',
    parse: parseBoolean,
  } satisfies ConfigRow<boolean>,
  {
    key: 'serverName',
    flag: '--server-name <name>',
    default: '',
    description: 'TLS server name to verify',
    parse: text,
  } satisfies ConfigRow<string>,
  {
    key: 'count',
    flag: '--count <n>',
    default: 0,
    description: 'exit after n responses (0: until interrupted)',
    parse: parseCount,
  } satisfies ConfigRow<number>,
];

export function routesConfig(
  command: Command,
  env: Readonly<Record<string, string | undefined>>,
): RoutesOptions {
  const c = resolveConfig(ROUTES_ROWS, command, env) as unknown as RoutesOptions;
  if (!c.insecure && (c.ca === '' || c.cert === '' || c.key === '')) {
    throw new ConfigError('--ca, --cert and --key are required (or --insecure)');
  }
  return c;
}
