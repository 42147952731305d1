/**
 * The options of `aeraki analyze`: render's input rows (files, root namespace, scope, domain, file limits), the
 * cluster to read (`--kubeconfig`, `--context`, `-A`; live when one of them is given or no `-f` is), the output
 * format, the severity that fails the run, the mesh facts the analyzers cannot read from files (VIP allocation, the
 * proxy images known to carry the MetaProtocol proxy or contrib extensions, beside the defaults), whether waypoint
 * filters are written (`--waypoint-envoyfilters`, off by default as for serve) and a namespace.
 */
import type { Command } from 'commander';
import { DEFAULT_CONTRIB_IMAGES, DEFAULT_META_PROTOCOL_IMAGES } from '../src/analyze/proxy-images.ts';
import type { AnalysisSeverity } from '../src/analyze/types.ts';
import { FILE_LIMIT_ROWS } from './file-limit-rows.ts';
import { oneOf, oneOfAnyCase, parseBoolean, parseNamespace, splitList, text } from './parsers.ts';
import { RENDER_ROWS } from './render-config.ts';
import {
  CLUSTER_DOMAIN_ROW,
  ConfigError,
  METAPROTOCOL_IMAGES_ROW,
  resolveConfig,
  type Env,
  type RowTable,
} from './rows.ts';

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
  readonly waypointFilters: boolean;
  readonly namespace: string | undefined;
  readonly kubeconfig: string;
  readonly context: string;
  readonly allNamespaces: boolean;
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
    description:
      'exit 1 when a message is at or above this severity: error, warning or info (any case: Warning as istioctl)',
    parse: oneOfAnyCase<AnalysisSeverity>('error', 'warning', 'info'),
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
  metaProtocolImages: METAPROTOCOL_IMAGES_ROW,
  contribImages: {
    flag: '--contrib-images <images>',
    default: [],
    description:
      'comma-separated proxy images that are Envoy builds with contrib extensions (Kafka), beside the known ones',
    parse: splitList(text),
  },
  waypointFilters: {
    flag: '--waypoint-envoyfilters [bool]',
    env: 'AERAKI_WAYPOINT_ENVOYFILTERS',
    default: false,
    description:
      'analyse as serve --waypoint-envoyfilters runs: filters for Istio waypoints (AER0014-AER0017 and AER0102 word their advice by it)',
    parse: parseBoolean,
  },
  namespace: {
    flag: '-n, --namespace <namespace>',
    default: undefined,
    description:
      "namespace of the files' objects that name none, as kubectl apply -n (another namespace is an error); only messages about it (and about cluster-scoped objects and files); live: read only it and the root namespace",
    parse: parseNamespace,
  },
  kubeconfig: {
    flag: '--kubeconfig <file>',
    default: '',
    description:
      'analyze the cluster of this kubeconfig (read only); without -f the default kubeconfig is read',
    parse: text,
  },
  context: {
    flag: '--context <name>',
    default: '',
    description: 'the kubeconfig context to read (default: its current context)',
    parse: text,
  },
  allNamespaces: {
    flag: '-A, --all-namespaces [bool]',
    default: false,
    description: "live: read every namespace (default: -n, else the context's namespace)",
    parse: parseBoolean,
  },
  ...FILE_LIMIT_ROWS,
};

/** The validated options of `aeraki analyze`. */
export function analyzeConfig(command: Command, env: Env): AnalyzeCliOptions {
  const options = resolveConfig(ANALYZE_ROWS, command, env);
  if (options.allNamespaces && options.namespace !== undefined) {
    throw new ConfigError('-n and -A exclude each other');
  }
  return {
    ...options,
    metaProtocolImages: [...DEFAULT_META_PROTOCOL_IMAGES, ...options.metaProtocolImages],
    contribImages: [...DEFAULT_CONTRIB_IMAGES, ...options.contribImages],
  };
}

/** Whether the run reads a cluster: a cluster flag is given, or no file is (as istioctl analyze reads its cluster). */
export function isLive(o: AnalyzeCliOptions): boolean {
  return o.kubeconfig !== '' || o.context !== '' || o.allNamespaces || o.files.length === 0;
}
