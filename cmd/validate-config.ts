/** The options of `aeraki validate`: render's input rows (files, root namespace, scope, domain) and `--strict`. */
import type { Command } from 'commander';
import type { ValidateFilesOptions } from '../src/app/validate.ts';
import { FILE_LIMIT_ROWS } from './file-limit-rows.ts';
import { parseBoolean } from './parsers.ts';
import { RENDER_ROWS } from './render-config.ts';
import { CLUSTER_DOMAIN_ROW, ConfigError, resolveConfig, type Env, type RowTable } from './rows.ts';

export interface ValidateCliOptions extends ValidateFilesOptions {
  /** Warnings fail too (exit 1). */
  readonly strict: boolean;
}

export const VALIDATE_ROWS: RowTable<ValidateCliOptions> = {
  files: RENDER_ROWS.files,
  namespace: RENDER_ROWS.namespace,
  rootNamespace: RENDER_ROWS.rootNamespace,
  clusterDomain: CLUSTER_DOMAIN_ROW,
  namespaceScope: RENDER_ROWS.namespaceScope,
  ...FILE_LIMIT_ROWS,
  strict: {
    flag: '--strict',
    default: false,
    description: 'warnings fail too (exit 1)',
    parse: parseBoolean,
  },
};

/** The validated options of `aeraki validate`. */
export function validateConfig(command: Command, env: Env): ValidateCliOptions {
  const { namespace, ...options } = resolveConfig(VALIDATE_ROWS, command, env);
  if (options.files.length === 0) throw new ConfigError('at least one -f <file-or-dir> is required');
  return Object.freeze({ ...options, ...(namespace !== undefined ? { namespace } : {}) });
}
