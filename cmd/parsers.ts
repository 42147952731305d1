/** Value parsers of the option tables of cmd/ (each throws commander's InvalidArgumentError). */
import { InvalidArgumentError } from 'commander';
import type { RegistrySpec } from '../src/model/registry-bridge.ts';
import { parseDurationNanos } from '../src/model/parse/duration.ts';
import { formatIssue } from '../src/model/result.ts';
import { parseRegistrySpec, splitRegistryList } from '../src/registry/spec.ts';
import { AddressError, formatAddress, parseListenAddress, type ListenAddress } from '../src/util/address.ts';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export const text = (raw: string): string => raw;

export function parseBoolean(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off', ''].includes(v)) return false;
  throw new InvalidArgumentError(`expected true or false, got "${raw}"`);
}

export function parseNamespace(raw: string): string {
  if (!DNS1123_LABEL.test(raw)) throw new InvalidArgumentError(`"${raw}" is not a valid namespace name`);
  return raw;
}

/** A DNS domain such as `cluster.local`: dot-separated DNS-1123 labels (Kubernetes' `--cluster-domain`). */
export function parseDomain(raw: string): string {
  const labels = raw.split('.');
  if (raw.length > 253 || !labels.every((l) => DNS1123_LABEL.test(l))) {
    throw new InvalidArgumentError(`"${raw}" is not a valid DNS domain`);
  }
  return raw;
}

/** A SPIFFE id of Istio's form: `spiffe://<trust domain>/ns/<namespace>/sa/<service account>`. */
export function parseSpiffeId(raw: string): string {
  if (!/^spiffe:\/\/[^/\s]+\/ns\/[^/\s]+\/sa\/[^/\s]+$/.test(raw)) {
    throw new InvalidArgumentError(
      `"${raw}" is not of the form spiffe://<trust domain>/ns/<namespace>/sa/<name>`,
    );
  }
  return raw;
}

export function oneOf<T extends string>(...values: T[]): (raw: string) => T {
  return (raw) => {
    const found = values.find((v) => v === raw);
    if (found !== undefined) return found;
    throw new InvalidArgumentError(`expected ${values.join(' | ')}, got "${raw}"`);
  };
}

/** oneOf, whatever the case the value is written in (`--fail-on Warning`, istioctl's spelling of a severity). */
export function oneOfAnyCase<T extends string>(...values: T[]): (raw: string) => T {
  const exact = oneOf(...values);
  return (raw) => exact(values.find((v) => v.toLowerCase() === raw.toLowerCase()) ?? raw);
}

/** A repeatable value: each occurrence is appended. */
export function appendPath(raw: string, previous: readonly string[] | undefined): readonly string[] {
  if (raw === '') throw new InvalidArgumentError('empty path');
  return [...(previous ?? []), raw];
}

export function parseCount(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new InvalidArgumentError(`expected a whole number, got "${raw}"`);
  return Number(raw);
}

/** A number above 0 (a rate). */
export function parsePositive(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`expected a number above 0, got "${raw}"`);
  return n;
}

/** A whole number of at least 1. */
export function parsePositiveCount(raw: string): number {
  const n = parseCount(raw);
  if (n < 1) throw new InvalidArgumentError(`expected a whole number of at least 1, got "${raw}"`);
  return n;
}

/** `host:port`, parsed once here (src/ takes the ListenAddress). */
export function parseAddress(raw: string): ListenAddress {
  try {
    return parseListenAddress(raw);
  } catch (err) {
    if (err instanceof AddressError) throw new InvalidArgumentError(err.message);
    throw err;
  }
}

/** `host:port` again, for the help and the clients that take a target string. */
export const showAddress = (a: ListenAddress): string => formatAddress(a.host, a.port);

/** Aeraki's AERAKI_XDS_PORT is `:15010`; a bare port and `host:port` are accepted too. */
export function parseRdsAddress(raw: string): ListenAddress {
  const address = /^\d+$/.test(raw) ? `0.0.0.0:${raw}` : raw.startsWith(':') ? `0.0.0.0${raw}` : raw;
  return parseAddress(address);
}

/** Like parseRdsAddress (`:15017`, `15017`, `host:port`); '' means off. */
export function parseOptionalAddress(raw: string): ListenAddress | undefined {
  return raw === '' ? undefined : parseRdsAddress(raw);
}

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION_REF = { kind: 'Flag', namespace: '', name: '' } as const;
const DURATION_HELP = 'a duration with a unit (ns, us, ms, s, m, h), such as 500ms, 2s, 1m or 1h30m';

/**
 * Milliseconds, from a duration written as MetaRouters write theirs (Go's time.ParseDuration, through the same
 * parser, model/parse/duration.ts): `500ms`, `2s`, `1.5m`, `1h30m`; `0` alone may go without a unit. A bare number
 * is refused (it named milliseconds once, so `--timeout 3` gave up after 3 ms), as is a part of a millisecond.
 * Carries its help formatter (formatDurationMs).
 */
export function parseDurationMs(raw: string): number {
  const text = raw.trim();
  if (/^\d+(\.\d*)?$/.test(text) && Number(text) !== 0)
    throw new InvalidArgumentError(`"${raw}" has no unit: expected ${DURATION_HELP}`);
  const parsed = parseDurationNanos(text, DURATION_REF, '');
  if (!parsed.ok) throw new InvalidArgumentError(`expected ${DURATION_HELP}, got "${raw}"`);
  if (parsed.value % 1_000_000n !== 0n)
    throw new InvalidArgumentError(`"${raw}" is not a whole number of milliseconds`);
  return Number(parsed.value / 1_000_000n);
}
parseDurationMs.format = formatDurationMs;

/** A duration above 0 (a period: 0 would mean no pause at all). */
export function parsePositiveDurationMs(raw: string): number {
  const ms = parseDurationMs(raw);
  if (ms <= 0) throw new InvalidArgumentError(`expected a duration above 0, got "${raw}"`);
  return ms;
}
parsePositiveDurationMs.format = formatDurationMs;

/**
 * A duration as users write it, in the largest unit that divides it (`200ms`, `15s`, `5m`, `24h`; `0` for 0).
 * parseDurationMs reads every value it prints.
 */
export function formatDurationMs(ms: number): string {
  if (ms === 0) return '0';
  for (const unit of ['h', 'm', 's'] as const) {
    const size = DURATION_UNITS[unit]!;
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

const toLevel = oneOf('debug', 'info', 'warn', 'error');

/** `info`, or Aeraki's `scope:level,...` (the `all`/`default` scope counts; fatal/none mean error). */
export function parseLogLevel(raw: string): ReturnType<typeof toLevel> {
  const entries = raw.split(',').map((e) => e.trim());
  let level: string | undefined;
  for (const e of entries) {
    const [scope, value] = e.includes(':') ? e.split(':', 2) : ['all', e];
    if (scope === 'all' || scope === 'default') level = value;
  }
  if (level === 'fatal' || level === 'none') level = 'error';
  if (level === 'warning') level = 'warn';
  try {
    return toLevel(level ?? '');
  } catch {
    throw new InvalidArgumentError(`expected debug | info | warn | error (or all:<level>), got "${raw}"`);
  }
}

export function parseTls(raw: string): boolean | 'auto' {
  return raw === 'auto' ? 'auto' : parseBoolean(raw);
}

export function parseOutputFormat(raw: string): 'yaml' | 'json' {
  if (raw === 'yaml' || raw === 'json') return raw;
  throw new InvalidArgumentError(`expected yaml or json, got "${raw}"`);
}

/**
 * `--registry NAME=URL` (repeatable), or `AERAKI_REGISTRIES` (comma-separated `NAME=URL`s): appended to `previous`.
 * Two registries of one name are an error.
 */
export function parseRegistries(
  raw: string,
  previous: readonly RegistrySpec[] | undefined,
): readonly RegistrySpec[] {
  const out = [...(previous ?? [])];
  for (const entry of splitRegistryList(raw)) {
    const r = parseRegistrySpec(entry);
    if (!r.ok) throw new InvalidArgumentError(r.issues.map(formatIssue).join('; '));
    if (out.some((s) => s.name === r.value.name)) {
      throw new InvalidArgumentError(`registry ${r.value.name} is given twice`);
    }
    out.push(r.value);
  }
  return out;
}

/** A comma-separated list, each item through `item`; blanks are dropped ('' is the empty list). */
export function splitList(item: (raw: string) => string): (raw: string) => readonly string[] {
  return (raw) =>
    raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map(item);
}

const SIZE_UNITS: Readonly<Record<string, number>> = { Ki: 1024, Mi: 1 << 20, Gi: 1 << 30 };

/** Bytes: `4194304`, `512Ki`, `4Mi`, `4MiB`, `1Gi`. Carries its help formatter (formatByteSize). */
export function parseByteSize(raw: string): number {
  const m = /^(\d+)(?:(Ki|Mi|Gi)B?|B)?$/.exec(raw.trim());
  if (!m) throw new InvalidArgumentError(`expected a size such as 65536, 64KiB or 4MiB, got "${raw}"`);
  return Number(m[1]) * (m[2] ? SIZE_UNITS[m[2]]! : 1);
}
parseByteSize.format = formatByteSize;

/** A size as users write it, in the largest binary unit that divides it (`4MiB`, `64KiB`, `1000B`); `0` for 0. */
export function formatByteSize(bytes: number): string {
  if (bytes === 0) return '0';
  for (const unit of ['Gi', 'Mi', 'Ki'] as const) {
    const size = SIZE_UNITS[unit]!;
    if (bytes % size === 0) return `${bytes / size}${unit}B`;
  }
  return `${bytes}B`;
}

/** Like parseAddress, but `:port` and a bare port mean loopback (127.0.0.1), not every interface. */
export function parseLoopbackDefault(raw: string): ListenAddress {
  const address = /^\d+$/.test(raw) ? `127.0.0.1:${raw}` : raw.startsWith(':') ? `127.0.0.1${raw}` : raw;
  return parseAddress(address);
}
