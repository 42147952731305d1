/**
 * The options of `aeraki analyze` (offline): render's input rows (files, root namespace, scope, domain, file limits),
 * the output format, the severity that fails the run, the mesh facts the analyzers cannot read from files (VIP
 * allocation, the proxy images known to carry the MetaProtocol proxy or contrib extensions) and a namespace filter.
 */
import type { Command } from 'commander';
import type { AnalysisSeverity } from '../src/analyze/types.ts';
import { FILE_LIMIT_ROWS } from './file-limit-rows.ts';
import { oneOf, parseBoolean, parseNamespace, splitList, text } from './parsers.ts';
import { RENDER_ROWS } from './render-config.ts';
import { CLUSTER_DOMAIN_ROW, ConfigError, resolveConfig, type Env, type RowTable } from './rows.ts';

export type AnalyzeOutput = 'text' | 'json' | 'sarif';

export interface AnalyzeCliOptions {
  readonly files: readonly string[];
  readonly output: AnalyzeOutput;
  readonly failOn: AnalysisSeverity;
  readonly rootNamespace: string;
  readonly clusterDomain: string;
  readonly namespaceScope: boolean;
  readonly vipAllocation: boolean;
  readonly metaProtocolImages: readonly string[];
  readonly contribImages: readonly string[];
  readonly namespace: string | undefined;
  readonly maxFileBytes: number;
  readonly maxFileDocuments: number;
  readonly maxYamlAliasNodes: number;
}

export const ANALYZE_ROWS: RowTable<AnalyzeCliOptions> = {
  files: RENDER_ROWS.files,
  output: {
    flag: '-o, --output <format>',
    default: 'text',
    description: 'output format: text (istioctl analyze form), json or sarif (SARIF 2.1.0)',
    parse: oneOf<AnalyzeOutput>('text', 'json', 'sarif'),
  },
  failOn: {
    flag: '--fail-on <severity>',
    default: 'error',
    description: 'exit 1 when a message is at or above this severity: error, warning or info',
    parse: oneOf<AnalysisSeverity>('error', 'warning', 'info'),
  },
  rootNamespace: RENDER_ROWS.rootNamespace,
  clusterDomain: CLUSTER_DOMAIN_ROW,
  namespaceScope: RENDER_ROWS.namespaceScope,
  vipAllocation: {
    flag: '--allocate-vips [bool]',
    env: 'AERAKI_ALLOCATE_VIPS',
    default: false,
    description: 'the mesh gives address-less ServiceEntries a VIP (serve --allocate-vips): no AER0004',
    parse: parseBoolean,
  },
  metaProtocolImages: {
    flag: '--metaprotocol-images <images>',
    default: [],
    description:
      'comma-separated proxy images (repository, with or without tag) that carry the MetaProtocol proxy',
    parse: splitList(text),
  },
  contribImages: {
    flag: '--contrib-images <images>',
    default: [],
    description: 'comma-separated proxy images that are Envoy builds with contrib extensions (Kafka)',
    parse: splitList(text),
  },
  namespace: {
    flag: '-n, --namespace <namespace>',
    default: undefined,
    description: 'only messages about objects of this namespace (and about cluster-scoped objects and files)',
    parse: parseNamespace,
  },
  ...FILE_LIMIT_ROWS,
};

/** The validated options of `aeraki analyze`. */
export function analyzeConfig(command: Command, env: Env): AnalyzeCliOptions {
  const options = resolveConfig(ANALYZE_ROWS, command, env);
  if (options.files.length === 0) throw new ConfigError('at least one -f <file-or-dir> is required');
  return options;
}
