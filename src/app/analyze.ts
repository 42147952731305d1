/**
 * `aeraki analyze`, offline: files → the objects as validate reads them, the EnvoyFilters render would write for
 * them (generateAll, as validate.ts generationCheck runs it), every issue validate reports, with both
 * severities, the EnvoyFilters of the files (for the analyzers of others' filters) and the ambient inputs
 * (Namespaces, Gateway API Gateways and GatewayClasses, controller/ambient-reads.ts) → the analyzers
 * (src/analyze/) → sorted messages. analysisInputOf is shared with the live path,
 * which reads raw objects and the cluster's facts instead of files.
 */
import { formatJson } from '../analyze/format/json.ts';
import { formatSarif, type SarifOptions } from '../analyze/format/sarif.ts';
import { formatText } from '../analyze/format/text.ts';
import { envoyFilterFacts } from '../analyze/envoyfilter-facts.ts';
import { runAnalysis } from '../analyze/run.ts';
import type {
  AnalysisInput,
  AnalysisMessage,
  AnalysisOptions,
  ClusterFacts,
  EnvoyFilterFacts,
  SourceLocation,
} from '../analyze/types.ts';
import { fillAmbient, readAmbientObjects } from '../controller/ambient-reads.ts';
import { fileLimitsOf, type FileLimits } from '../controller/config-file.ts';
import { fillStore } from '../controller/file-source.ts';
import { ConfigStore } from '../controller/store.ts';
import { generateAll } from '../envoyfilter/generate-all.ts';
import { ISTIO_GROUP } from '../model/constants.ts';
import { offlineIssues } from '../model/held.ts';
import { kindsOf } from '../model/kinds.ts';
import type { OutputObject } from '../model/objects.ts';
import { DEFAULT_PARSE_OPTIONS } from '../model/parse/parse.ts';
import { parseRawObjects } from '../model/parse/objects.ts';
import { protocolFactsOf } from '../model/protocol-facts.ts';
import { dedupeIssues, type ConfigIssue, type ObjectRef } from '../model/result.ts';
import { createGenerators, createProtocolNames } from '../plugins/registry.ts';
import { isPlainObject } from '../util/json.ts';
import { readLocatedObjects } from './analyze-locate.ts';

export { readLocatedObjects } from './analyze-locate.ts';

/** What an analysis needs besides its input objects: AnalysisOptions with the generation's own switches. */
export interface AnalyzeOptions extends AnalysisOptions {
  /**
   * `-n`: only messages about this namespace (and about no namespace), and the files' objects without a namespace
   * take it, as with kubectl apply -n (model/parse/namespace-flag.ts); absent: all, and `default`.
   */
  readonly namespace?: string;
  /** Where each object came from (offline), for the messages' file and line. */
  readonly locate?: (ref: ObjectRef, path: string) => SourceLocation | undefined;
}

/** The file limits (config-file.ts) default to DEFAULT_FILE_LIMITS. */
export interface AnalyzeFilesOptions extends AnalyzeOptions, Partial<FileLimits> {
  readonly files: readonly string[];
}

/**
 * The input of an analysis: `raws` parsed as validate parses them (after `readIssues`, the problems of reading
 * them), the EnvoyFilters generateAll makes of them and every issue (parse, generation, ports nothing handles),
 * each keeping both its severities, the EnvoyFilters among `raws` (envoyFiltersOf); `cluster` for a live analysis.
 */
export function analysisInputOf(
  raws: readonly unknown[],
  readIssues: readonly ConfigIssue[],
  o: AnalyzeOptions,
  cluster?: ClusterFacts,
): AnalysisInput {
  const generators = createGenerators();
  const kinds = kindsOf(generators);
  const clusterDomain = o.clusterDomain ?? DEFAULT_PARSE_OPTIONS.clusterDomain;
  const objects = parseRawObjects(raws, o.rootNamespace, [...readIssues], { clusterDomain, kinds });
  const store = new ConfigStore({ rootNamespace: o.rootNamespace, mesh: objects.mesh, clusterDomain, kinds });
  fillStore(store, objects);
  const ambient = readAmbientObjects([...namespaceRaws(cluster), ...raws]);
  fillAmbient(store.readsAmbient(), ambient);
  const protocolNames = createProtocolNames(generators);
  const generated = generateAll(store, generators, {
    namespaceScope: o.namespaceScope,
    protocolNames,
    waypointFilters: o.waypointFilters === true,
    ambient: store,
    metaProtocolImages: o.metaProtocolImages,
  });
  const issues = dedupeIssues(
    offlineIssues([
      ...objects.issues,
      ...ambient.issues,
      ...generated.issues,
      ...generated.unhandledPorts.map((p) => p.warning),
    ]),
  );
  const options: AnalysisOptions = {
    rootNamespace: o.rootNamespace,
    namespaceScope: o.namespaceScope,
    vipAllocation: o.vipAllocation,
    metaProtocolImages: o.metaProtocolImages,
    contribImages: o.contribImages,
    clusterDomain,
    ...(o.waypointFilters === true ? { waypointFilters: true } : {}),
  };
  const envoyFilters = envoyFiltersOf(raws);
  return {
    objects,
    issues,
    generated: generated.objects
      .filter((x: OutputObject) => x.kind === 'EnvoyFilter')
      .map(envoyFilterFacts)
      .filter((f): f is EnvoyFilterFacts => f !== undefined),
    options,
    ambient: store,
    detectedProtocols: protocolNames.names,
    handledProtocols: [...new Set(generators.flatMap((g) => g.protocols))],
    protocols: protocolFactsOf(generators),
    ...(envoyFilters.length > 0 ? { envoyFilters } : {}),
    ...(cluster !== undefined ? { cluster } : {}),
    ...(o.locate !== undefined ? { locate: o.locate } : {}),
  };
}

/**
 * The cluster's Namespaces (ClusterFacts.namespaces: name and labels) as Namespace objects, read before the raws
 * so that a file's Namespace of the same name wins, as a file's object wins over the cluster's.
 */
function namespaceRaws(cluster: ClusterFacts | undefined): unknown[] {
  return (cluster?.namespaces ?? []).map((n) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: n.name, labels: { ...n.labels } },
  }));
}

/**
 * The EnvoyFilters among `raws` (the controller's parser skips the kind), reduced to facts; a later definition
 * of the same namespace and name replaces an earlier one, as in parsing.
 */
function envoyFiltersOf(raws: readonly unknown[]): EnvoyFilterFacts[] {
  const byKey = new Map<string, EnvoyFilterFacts>();
  for (const raw of raws) {
    if (!isPlainObject(raw) || raw['kind'] !== 'EnvoyFilter') continue;
    const apiVersion = text(raw, 'apiVersion') ?? '';
    if (!apiVersion.startsWith(`${ISTIO_GROUP}/`)) continue;
    const facts = envoyFilterFacts(raw);
    if (facts !== undefined) byKey.set(`${facts.namespace}/${facts.name}`, facts);
  }
  return [...byKey.values()];
}

function text(v: Record<string, unknown> | undefined, key: string): string | undefined {
  const x = v?.[key];
  return typeof x === 'string' ? x : undefined;
}

/** Analyses files: every message, sorted (run.ts), with the file and line of its object. */
export function analyzeFiles(o: AnalyzeFilesOptions): AnalysisMessage[] {
  const read = readLocatedObjects(o.files, fileLimitsOf(o), o.namespace);
  const input = analysisInputOf(read.raws, read.issues, { ...o, locate: o.locate ?? read.locate });
  return runAnalysis(input, o.namespace !== undefined ? { namespace: o.namespace } : {});
}

/**
 * The messages as `-o` asks: text (istioctl's form), json or sarif; `namespace`, the one the analysis was limited
 * to (`-n`), is named by the text form when nothing was found.
 */
export function formatAnalysis(
  messages: readonly AnalysisMessage[],
  output: 'text' | 'json' | 'sarif',
  sarif: SarifOptions,
  namespace?: string,
): string {
  if (output === 'json') return formatJson(messages);
  if (output === 'sarif') return formatSarif(messages, sarif);
  return formatText(messages, namespace);
}
