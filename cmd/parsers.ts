/** Value parsers shared by the option tables of cmd/ (each throws commander's InvalidArgumentError). */
import { InvalidArgumentError } from 'commander';
import { parseListenAddress } from '../src/util/address.ts';
import { parseBoolean, type ConfigRow } from './config.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- heterogeneous table, typed per row
export type AnyRow = ConfigRow<any>;

export function oneOf<T extends string>(...values: T[]): (raw: string) => T {
  return (raw) => {
    if ((values as string[]).includes(raw)) return raw as T;
    throw new InvalidArgumentError(`expected ${values.join(' | ')}, got "${raw}"`);
  };
}

export function parseAddress(raw: string): string {
  const parsed = parseListenAddress(raw);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.message);
  return raw;
}

/** Aeraki's AERAKI_XDS_PORT is `:15010`; a bare port and `host:port` are accepted too. */
export function parseRdsAddress(raw: string): string {
  const address = /^\d+$/.test(raw) ? `0.0.0.0:${raw}` : raw.startsWith(':') ? `0.0.0.0${raw}` : raw;
  return parseAddress(address);
}

/** Milliseconds: `250`, `250ms`, `2s`, `1m`. */
export function parseDurationMs(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(raw.trim());
  if (!m) throw new InvalidArgumentError(`expected a duration such as 500, 500ms, 2s or 1m, got "${raw}"`);
  const n = Number(m[1]);
  const ms = m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n;
  return Math.round(ms);
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];

/** `info`, or Aeraki's `scope:level,...` (the `all`/`default` scope counts; fatal/none mean error). */
export function parseLogLevel(raw: string): Level {
  const entries = raw.split(',').map((e) => e.trim());
  let level: string | undefined;
  for (const e of entries) {
    const [scope, value] = e.includes(':') ? e.split(':', 2) : ['all', e];
    if (scope === 'all' || scope === 'default') level = value;
  }
  if (level === 'fatal' || level === 'none') level = 'error';
  if (level === 'warning') level = 'warn';
  if (level !== undefined && (LEVELS as readonly string[]).includes(level)) return level as Level;
  throw new InvalidArgumentError(`expected debug | info | warn | error (or all:<level>), got "${raw}"`);
}

export function parseTls(raw: string): boolean | 'auto' {
  return raw === 'auto' ? 'auto' : parseBoolean(raw);
}

export const text = (raw: string) => raw;

export const row = <T>(r: ConfigRow<T>): AnyRow => r;
