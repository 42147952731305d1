/** Options of `aeraki proxy-status` (reads /debug/proxies of a running controller), same row table as the rest. */
import { InvalidArgumentError, type Command } from 'commander';
import type { ListenAddress } from '../src/util/address.ts';
import { parseBoolean, parseDurationMs, parseLoopbackDefault, showAddress } from './parsers.ts';
import { resolveConfig, type Env, type RowTable } from './rows.ts';

/** The `-o` formats, as the help lists them. */
export const PROXY_STATUS_OUTPUTS = ['table', 'wide', 'json', 'yaml'] as const;
export type ProxyStatusOutput = (typeof PROXY_STATUS_OUTPUTS)[number];

export interface ProxyStatusOptions {
  /** The controller's debug listener (`aeraki serve --debug-endpoints --debug-address`). */
  readonly debugAddress: ListenAddress;
  readonly output: ProxyStatusOutput;
  /** Also print one row per proxy. */
  readonly proxies: boolean;
  readonly timeoutMs: number;
}

function parseOutput(raw: string): ProxyStatusOutput {
  const known = PROXY_STATUS_OUTPUTS.find((o) => o === raw);
  if (known !== undefined) return known;
  throw new InvalidArgumentError(`expected one of ${PROXY_STATUS_OUTPUTS.join(', ')}, got "${raw}"`);
}

export const PROXY_STATUS_ROWS: RowTable<ProxyStatusOptions> = {
  debugAddress: {
    flag: '--debug-address <host:port>',
    env: 'AERAKI_DEBUG_ADDRESS',
    default: { host: '127.0.0.1', port: 15090 },
    description:
      "the controller's /debug/* listener (aeraki serve --debug-endpoints); `:port` means loopback",
    parse: parseLoopbackDefault,
    format: showAddress,
  },
  output: {
    flag: '-o, --output <format>',
    default: 'table',
    description: 'one of table, wide (whole proxy ids and errors), json or yaml (the rows, errors whole)',
    parse: parseOutput,
  },
  proxies: {
    flag: '--proxies',
    default: false,
    description: 'also print one row per proxy',
    parse: parseBoolean,
  },
  timeoutMs: {
    flag: '--timeout <duration>',
    default: 5_000,
    description: 'give up (exit 1) when the controller does not answer within this time',
    parse: parseDurationMs,
  },
};

export function proxyStatusConfig(command: Command, env: Env): ProxyStatusOptions {
  return resolveConfig(PROXY_STATUS_ROWS, command, env);
}
