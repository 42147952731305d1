/**
 * Process configuration: one table of {flag, env, default, parse} rows per command, keyed by the property of
 * the options object it fills, and resolved into that object, frozen. Precedence: command-line flag, then
 * environment variable, then default. Only cmd/ reads process.env and argv; this module receives them.
 */
import { Option, type Command } from 'commander';
import { CLUSTER_DOMAIN } from '../src/model/constants.ts';
import { parseDomain, splitList, text } from './parsers.ts';

export interface ConfigRow<T> {
  /** commander flags, e.g. `--root-namespace <ns>`; a flag without `<value>` or `[value]` is a switch. */
  readonly flag: string;
  readonly env?: string;
  readonly default: T;
  readonly description: string;
  /** Parses one raw value (from argv or env); throws InvalidArgumentError. `previous` supports repeatable flags. */
  readonly parse: (raw: string, previous: T | undefined) => T;
  /** How the help writes the default (default: the parser's own `format`, see below, else String). */
  readonly format?: (value: T) => string;
}

/**
 * A parser may carry how the help writes its values (`parse.format`): parseDurationMs and parseByteSize do, so
 * every row of a duration or a size shows its default as users write it (`15s`, `4MiB`) without saying so.
 */
interface SelfFormatting<T> {
  readonly format?: (value: T) => string;
}

/** The default as the help shows it: the row's format, else its parser's, else String. */
export function showDefault<T>(row: ConfigRow<T>): string {
  const format = row.format ?? (row.parse as SelfFormatting<T>).format;
  return format ? format(row.default) : String(row.default);
}

/** The rows filling an options object `O`: one per property, in the order the help lists them. */
export type RowTable<O> = { readonly [K in keyof O]-?: ConfigRow<O[K]> };

export type Env = Readonly<Record<string, string | undefined>>;

/** A value that cannot be used (bad flag or variable, inconsistent combination); the message names it. */
export class ConfigError extends Error {}

function keysOf<O>(table: RowTable<O>): (keyof O)[] {
  return Object.keys(table) as (keyof O)[];
}

function isSwitch<T>(row: ConfigRow<T>): boolean {
  return !row.flag.includes('<') && !row.flag.includes('[');
}

function helpOf<T>(row: ConfigRow<T>): string {
  const env = row.env ? ` [env: ${row.env}]` : '';
  const hidden = Array.isArray(row.default) || row.default === undefined || row.default === '';
  const shown = hidden ? '' : ` (default: ${showDefault(row)})`;
  return `${row.description}${shown}${env}`;
}

/** Adds the table's options to a commander command (no defaults: precedence is resolved in resolveConfig). */
export function addOptions<O>(command: Command, table: RowTable<O>): Command {
  for (const key of keysOf(table)) {
    const row = table[key];
    const option = new Option(row.flag, helpOf(row));
    if (!isSwitch(row)) option.argParser(row.parse);
    command.addOption(option);
  }
  return command;
}

function resolveRow<T>(row: ConfigRow<T>, command: Command, env: Env): T {
  const attr = new Option(row.flag).attributeName();
  const envValue = row.env ? env[row.env] : undefined;
  try {
    if (command.getOptionValueSource(attr) === 'cli') return command.getOptionValue(attr) as T;
    if (envValue !== undefined) return row.parse(envValue, undefined);
    return row.default;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ConfigError(`invalid value of ${row.env ?? row.flag}: ${why}`, { cause: err });
  }
}

/** flag > env > default, each value through its row's parse; the result is frozen. */
export function resolveConfig<O>(table: RowTable<O>, command: Command, env: Env): Readonly<O> {
  const out = {} as O;
  for (const key of keysOf(table)) out[key] = resolveRow(table[key], command, env);
  return Object.freeze(out);
}

/** `--cluster-domain`, the same row in every command that reads Services or completes short hosts. */
export const CLUSTER_DOMAIN_ROW = {
  flag: '--cluster-domain <domain>',
  env: 'AERAKI_CLUSTER_DOMAIN',
  default: CLUSTER_DOMAIN,
  description: 'Kubernetes cluster domain: Service hosts are <name>.<namespace>.svc.<domain>',
  parse: parseDomain,
} satisfies ConfigRow<string>;

/**
 * `--metaprotocol-images` of render, analyze and serve (serve adds its env name and what it does with them): the
 * images beside model/proxy-images.ts's known ones that carry the MetaProtocol proxy.
 */
export const METAPROTOCOL_IMAGES_ROW = {
  flag: '--metaprotocol-images <images>',
  default: [],
  description:
    'comma-separated proxy images (repository, with or without tag) that carry the MetaProtocol proxy, beside the known ones',
  parse: splitList(text),
} satisfies ConfigRow<readonly string[]>;
