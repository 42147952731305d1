/** The limits on what one config file may cost (`render`, `validate`, `serve --config-source dir`). */
import { DEFAULT_FILE_LIMITS } from '../src/controller/config-file.ts';
import { parseByteSize, parseCount, parsePositiveCount } from './parsers.ts';

export const FILE_LIMIT_ROWS = {
  maxFileBytes: {
    flag: '--max-file-size <size>',
    env: 'AERAKI_MAX_FILE_SIZE',
    default: DEFAULT_FILE_LIMITS.maxFileBytes,
    description: 'largest config file read (4MiB, 64Mi, 1GiB, or bytes); a larger file is an error',
    parse: parseByteSize,
  },
  maxFileDocuments: {
    flag: '--max-file-documents <n>',
    env: 'AERAKI_MAX_FILE_DOCUMENTS',
    default: DEFAULT_FILE_LIMITS.maxFileDocuments,
    description: 'most YAML documents in one config file; more is an error',
    parse: parsePositiveCount,
  },
  maxYamlAliasNodes: {
    flag: '--max-yaml-alias-nodes <n>',
    env: 'AERAKI_MAX_YAML_ALIAS_NODES',
    default: DEFAULT_FILE_LIMITS.maxYamlAliasNodes,
    description: 'most nodes YAML aliases may add to one config file when expanded; more is an error',
    parse: parseCount,
  },
};
