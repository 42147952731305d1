/**
 * The offline path of `aeraki render`: files → ConfigStore → generateAll (or the MetaProtocol route builder) → one sorted, deterministic
 * document. Identical input gives byte-identical output.
 */
import { fileLimitsOf, type FileLimits } from '../controller/config-file.ts';
import { fillStore, loadConfigFiles } from '../controller/file-source.ts';
import { ConfigStore } from '../controller/store.ts';
import { generateAll } from '../envoyfilter/generate-all.ts';
import { offlineIssues } from '../model/held.ts';
import { dedupeIssues, type ConfigIssue } from '../model/result.ts';
import { createGenerators, createPluginKinds, createProtocolNames } from '../plugins/registry.ts';
import { sortKeys } from '../util/json.ts';
import { writeYaml } from '../util/yaml-text.ts';
import { buildRouteConfigurations } from '../xds-rds/routes.ts';

export type OutputFormat = 'yaml' | 'json';

/** The file limits (config-file.ts) default to DEFAULT_FILE_LIMITS. */
export interface RenderOptions extends Partial<FileLimits> {
  readonly files: readonly string[];
  readonly output: OutputFormat;
  /** Render the MetaProtocol RDS RouteConfigurations instead of the EnvoyFilters. */
  readonly routes: boolean;
  readonly rootNamespace: string;
  readonly namespaceScope: boolean;
  /** `--cluster-domain`: the domain of Kubernetes Service hosts and of short hosts (`foo` → `foo.<ns>.svc.<domain>`);
   *  default cluster.local. */
  readonly clusterDomain?: string;
  /**
   * `--waypoint-envoyfilters`: read Namespaces, Gateway API Gateways and GatewayClasses too and write the waypoint
   * EnvoyFilters (envoyfilter/waypoint.ts). Off (absent): those kinds are skipped silently, output as before.
   */
  readonly waypointFilters?: boolean;
  /** Images known to carry the MetaProtocol proxy, the whole list (WaypointOptions); absent: the default list. */
  readonly metaProtocolImages?: readonly string[];
  /** `-n`: objects without a namespace take it, others are refused (model/parse/namespace-flag.ts). */
  readonly namespace?: string;
}

export interface RenderResult {
  /** The whole document, newline-terminated. */
  readonly stdout: string;
  /**
   * Every input problem, in order: files and objects first, then generation, then the ports nothing handles. Any
   * error means exit code 1; warnings alone leave it 0.
   */
  readonly issues: ConfigIssue[];
}

/** How loadStore reads: the cluster domain (default cluster.local), file limits, and whether ambient inputs too. */
export interface LoadStoreOptions {
  readonly clusterDomain?: string;
  readonly limits?: FileLimits;
  /** Read Namespaces, Gateway API Gateways and GatewayClasses into the store's AmbientView (their issues follow). */
  readonly ambient?: boolean;
  /** `-n` (RenderOptions.namespace). */
  readonly namespace?: string;
}

/** Loads `files` into a fresh store; the issues of files and objects, then those of the ambient inputs. */
export function loadStore(
  files: readonly string[],
  rootNamespace: string,
  options: LoadStoreOptions = {},
): { store: ConfigStore; issues: ConfigIssue[] } {
  const domain = options.clusterDomain !== undefined ? { clusterDomain: options.clusterDomain } : {};
  const kinds = createPluginKinds();
  const loaded = loadConfigFiles(files, {
    rootNamespace,
    ...domain,
    kinds,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.ambient === true ? { ambient: true } : {}),
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
  });
  const store = new ConfigStore({ rootNamespace, mesh: loaded.mesh, ...domain, kinds });
  fillStore(store, loaded);
  return { store, issues: [...loaded.issues, ...(loaded.ambient?.issues ?? [])] };
}

export function render(options: RenderOptions): RenderResult {
  const chunks: string[] = [];
  const issues = renderTo(options, (chunk) => chunks.push(chunk));
  return { stdout: chunks.join(''), issues };
}

/** render(), writing the document to `write` in pieces, in order (a large one never is one string); its issues. */
export function renderTo(options: RenderOptions, write: (chunk: string) => void): ConfigIssue[] {
  const waypoints = options.waypointFilters === true && !options.routes;
  const { store, issues } = loadStore(options.files, options.rootNamespace, {
    ...(options.clusterDomain !== undefined ? { clusterDomain: options.clusterDomain } : {}),
    limits: fileLimitsOf(options),
    ambient: waypoints,
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
  });
  let document: unknown;
  if (options.routes) {
    const built = buildRouteConfigurations(store);
    issues.push(...built.issues);
    document = { kind: 'RouteConfigurationList', items: built.routes };
  } else {
    const generators = createGenerators();
    const generated = generateAll(store, generators, {
      namespaceScope: options.namespaceScope,
      protocolNames: createProtocolNames(generators),
      ...(waypoints ? { waypointFilters: true, ambient: store } : {}),
      ...(options.metaProtocolImages ? { metaProtocolImages: options.metaProtocolImages } : {}),
    });
    issues.push(...generated.issues, ...generated.unhandledPorts.map((p) => p.warning));
    document = { apiVersion: 'v1', kind: 'List', items: generated.objects };
  }
  // Keys sorted: identical input always gives byte-identical output.
  if (options.output === 'json') write(`${JSON.stringify(sortKeys(document), null, 2)}\n`);
  else writeYaml(document, write, { sorted: true });
  return dedupeIssues(offlineIssues(issues));
}
