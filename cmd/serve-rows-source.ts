/** `aeraki serve` options of the config sources: istiod over MCP, the Kubernetes API or a watched directory. */
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ConfigSourceKind, SourceOptions } from '../src/app/options.ts';
import { sourceChoicesHelp, sourceKinds } from '../src/app/source-list.ts';
import { FILE_LIMIT_ROWS } from './file-limit-rows.ts';
import { text, oneOf, parseDurationMs, parsePositiveDurationMs, parseTls } from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface SourceFlags {
  readonly configSource: ConfigSourceKind;
  readonly istiodAddress: string;
  readonly istiodTls: boolean | 'auto';
  readonly istiodRootCertFile: string;
  readonly istiodTokenFile: string;
  readonly configDir: string;
  readonly watchDebounceMs: number;
  readonly maxFileBytes?: number;
  readonly maxFileDocuments?: number;
  readonly maxYamlAliasNodes?: number;
  /**
   * As given: '' (the default) is resolved by serveConfig (dirStateFileOf: beside the output directory, or in the
   * temporary directory; `none`: off); here '' is off.
   */
  readonly dirStateFile?: string;
  readonly secretRefreshMs: number;
}

export const SOURCE_ROWS = {
  configSource: {
    flag: '--config-source <source>',
    env: 'AERAKI_CONFIG_SOURCE',
    default: 'mcp',
    description: `where Istio config comes from: ${sourceChoicesHelp()}`,
    parse: oneOf(...sourceKinds()),
  },
  istiodAddress: {
    flag: '--istiod-address <host:port>',
    env: 'AERAKI_ISTIOD_ADDR',
    default: 'istiod.istio-system:15010',
    description: 'istiod MCP-over-xDS address',
    parse: text,
  },
  istiodTls: {
    flag: '--istiod-tls <mode>',
    env: 'AERAKI_ISTIOD_TLS',
    default: 'auto',
    description: 'TLS to istiod: auto (plaintext on port 15010) | true | false',
    parse: parseTls,
  },
  istiodRootCertFile: {
    flag: '--istiod-root-cert-file <file>',
    env: 'AERAKI_ISTIOD_ROOT_CERT',
    default: '',
    description: 'PEM root certificate to verify istiod (default: system roots)',
    parse: text,
  },
  istiodTokenFile: {
    flag: '--istiod-token-file <file>',
    env: 'AERAKI_ISTIOD_TOKEN_FILE',
    default: '',
    description: 'service account token file sent to istiod as a bearer token',
    parse: text,
  },
  configDir: {
    flag: '--config-dir <dir>',
    env: 'AERAKI_CONFIG_DIR',
    default: '',
    description: 'directory of YAML/JSON config, watched (--config-source dir)',
    parse: text,
  },
  watchDebounceMs: {
    flag: '--watch-debounce <duration>',
    env: 'AERAKI_WATCH_DEBOUNCE',
    default: 200,
    description: 'quiet period before re-reading a changed --config-dir',
    parse: parseDurationMs,
  },
  ...FILE_LIMIT_ROWS,
  dirStateFile: {
    flag: '--dir-state-file <file>',
    env: 'AERAKI_DIR_STATE_FILE',
    default: '',
    description:
      "where --config-dir keeps its files' last good reads across restarts (default: <output-dir>.aeraki-dir-state beside it with --output dir, else <tmp>/aeraki-dir-state-<hash of --config-dir>; none: off)",
    parse: text,
  },
  secretRefreshMs: {
    flag: '--secret-refresh-interval <duration>',
    env: 'AERAKI_SECRET_REFRESH_INTERVAL',
    default: 60_000,
    description:
      'how often the Secrets Redis auth names are read again (a rotated password reaches the filters)',
    parse: parsePositiveDurationMs,
  },
} satisfies RowTable<SourceFlags>;

/**
 * What the state file's name adds to the `--output dir` directory's: it lives beside it (the directory holds only
 * `<namespace>/<kind>-<name>.yaml`), and with no .yaml/.json extension no tool reads it as config.
 */
export const DIR_STATE_SUFFIX = '.aeraki-dir-state';

/**
 * The directory source's state file: `--dir-state-file` as given (`none`: off); by default beside the output
 * directory with `--output dir` (`out/` → `out.aeraki-dir-state`), else in the temporary directory (the Deployment mounts an emptyDir there: it
 * survives a container restart, not a new pod), named after the config directory so two processes reading
 * different directories never share one.
 */
export function dirStateFileOf(f: {
  readonly configSource: ConfigSourceKind;
  readonly configDir: string;
  readonly dirStateFile?: string;
  readonly output: string;
  readonly outputDir: string;
}): string {
  if (f.configSource !== 'dir' || f.dirStateFile === 'none') return '';
  if (f.dirStateFile !== undefined && f.dirStateFile !== '') return f.dirStateFile;
  if (f.output === 'dir' && f.outputDir !== '') return `${path.resolve(f.outputDir)}${DIR_STATE_SUFFIX}`;
  const id = createHash('sha256').update(path.resolve(f.configDir)).digest('hex').slice(0, 16);
  return path.join(tmpdir(), `aeraki-dir-state-${id}`);
}

export function sourceOptions(f: SourceFlags): SourceOptions {
  return {
    kind: f.configSource,
    istiodAddress: f.istiodAddress,
    istiodTls: f.istiodTls,
    istiodRootCertFile: f.istiodRootCertFile,
    istiodTokenFile: f.istiodTokenFile,
    dir: f.configDir,
    watchDebounceMs: f.watchDebounceMs,
    maxFileBytes: f.maxFileBytes,
    maxFileDocuments: f.maxFileDocuments,
    maxYamlAliasNodes: f.maxYamlAliasNodes,
    ...(f.dirStateFile !== undefined && f.dirStateFile !== '' ? { stateFile: f.dirStateFile } : {}),
    secretRefreshMs: f.secretRefreshMs,
  };
}
