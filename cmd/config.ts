/**
 * Process configuration: one table of {flag, env, default, parse} rows per command, turned into a frozen,
 * validated config. Precedence: command-line flag, then environment variable, then default. Only cmd/ reads
 * process.env and argv; this module receives them as arguments.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_ROOT_NAMESPACE } from '../src/model/constants.ts';
import type { RenderOptions } from '../src/app/index.ts';

export interface ConfigRow<T> {
  /** Property name in the resulting config. */
  readonly key: string;
  /** commander flags, e.g. `--root-namespace <ns>`; a flag without `<value>` is a boolean switch. */
  readonly flag: string;
  readonly env?: string;
  readonly default: T;
  readonly description: string;
  /** Parses one raw value (from argv or env); throws InvalidArgumentError. `previous` supports repeatable flags. */
  readonly parse: (raw: string, previous: T | undefined) => T;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

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

function parseOutput(raw: string): 'yaml' | 'json' {
  if (raw === 'yaml' || raw === 'json') return raw;
  throw new InvalidArgumentError(`expected yaml or json, got "${raw}"`);
}

function appendFile(raw: string, previous: readonly string[] | undefined): readonly string[] {
  if (raw === '') throw new InvalidArgumentError('empty path');
  return [...(previous ?? []), raw];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- heterogeneous table, typed per row above
type AnyRow = ConfigRow<any>;

export const RENDER_ROWS: readonly AnyRow[] = [
  {
    key: 'files',
    flag: '-f, --filename <file-or-dir>',
    default: [],
    description: 'file or directory of YAML/JSON objects (repeatable; directories are read recursively)',
    parse: appendFile,
  } satisfies ConfigRow<readonly string[]>,
  {
    key: 'output',
    flag: '-o, --output <format>',
    default: 'yaml',
    description: 'output format: yaml or json',
    parse: parseOutput,
  } satisfies ConfigRow<'yaml' | 'json'>,
  {
    key: 'routes',
    flag: '--routes',
    default: false,
    description: 'render the MetaProtocol RDS RouteConfigurations instead of the EnvoyFilters',
    parse: parseBoolean,
  } satisfies ConfigRow<boolean>,
  {
    key: 'rootNamespace',
    flag: '--root-namespace <namespace>',
    env: 'AERAKI_NAMESPACE',
    default: DEFAULT_ROOT_NAMESPACE,
    description:
      'Istio root namespace: default EnvoyFilter namespace, `*` of exportTo, home of the mesh ConfigMap',
    parse: parseNamespace,
  } satisfies ConfigRow<string>,
  {
    key: 'namespaceScope',
    flag: '--namespace-scope',
    env: 'AERAKI_ENABLE_ENVOY_FILTER_NS_SCOPE',
    default: false,
    description:
      "put filters without exportTo in their ServiceEntry's namespace instead of the root namespace",
    parse: parseBoolean,
  } satisfies ConfigRow<boolean>,
];

function isSwitch(row: AnyRow): boolean {
  return !row.flag.includes('<') && !row.flag.includes('[');
}

/** Adds the rows' options to a commander command (no defaults: precedence is resolved in resolveConfig). */
export function addOptions(command: Command, rows: readonly AnyRow[]): Command {
  for (const row of rows) {
    const env = row.env ? ` [env: ${row.env}]` : '';
    const hidden = Array.isArray(row.default) || row.default === undefined || row.default === '';
    const shown = hidden ? '' : ` (default: ${String(row.default)})`;
    const option = new Option(row.flag, `${row.description}${shown}${env}`);
    if (!isSwitch(row)) option.argParser((raw: string, prev: unknown) => row.parse(raw, prev));
    command.addOption(option);
  }
  return command;
}

export class ConfigError extends Error {}

/** flag > env > default, each value through its row's parse; the result is frozen. */
export function resolveConfig(
  rows: readonly AnyRow[],
  command: Command,
  env: Readonly<Record<string, string | undefined>>,
): Readonly<Record<string, unknown>> {
  const opts = command.opts();
  const out: Record<string, unknown> = {};
  for (const row of rows) {
    const attr = new Option(row.flag).attributeName();
    const fromCli = command.getOptionValueSource(attr) === 'cli';
    const envValue = row.env ? env[row.env] : undefined;
    try {
      if (fromCli) out[row.key] = opts[attr];
      else if (envValue !== undefined) out[row.key] = row.parse(envValue, undefined);
      else out[row.key] = row.default;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new ConfigError(`invalid value of ${row.env ?? row.flag}: ${why}`, { cause: err });
    }
  }
  return Object.freeze(out);
}

/** The validated options of `aeraki render`. */
export function renderConfig(
  command: Command,
  env: Readonly<Record<string, string | undefined>>,
): RenderOptions {
  const c = resolveConfig(RENDER_ROWS, command, env) as unknown as RenderOptions;
  if (c.files.length === 0) throw new ConfigError('at least one -f <file-or-dir> is required');
  return Object.freeze({ ...c, files: Object.freeze([...c.files]) });
}
