/**
 * `aeraki analyze` against a live cluster, composed: the kubeconfig (the user's, or client-node's default), the
 * kinds the controller reads (the core's Istio kinds in the API version the cluster serves, the Aeraki CRDs and the
 * plugins' kinds, Kubernetes Services) given to analyze's cluster reader (src/analyze/live/cluster-read.ts, which
 * also reads the live analyzers' facts), the files added to them, and the analysis.
 */
import { KubeConfig } from '@kubernetes/client-node';
import {
  readClusterObjects,
  type ClusterRead,
  type ClusterScopeOptions,
} from '../analyze/live/cluster-read.ts';
import type { ListTarget } from '../analyze/live/cluster-reads.ts';
import { runAnalysis } from '../analyze/run.ts';
import type { AnalysisMessage } from '../analyze/types.ts';
import { fileLimitsOf, type FileLimits } from '../controller/config-file.ts';
import {
  aerakiResources,
  detectIstioApiVersion,
  istioResources,
  SERVICE_RESOURCE,
  type KindResource,
} from '../controller/kube/resources.ts';
import { createPluginKinds } from '../plugins/registry.ts';
import { analysisInputOf, readLocatedObjects, type AnalyzeOptions } from './analyze.ts';

export interface ReadClusterOptions extends ClusterScopeOptions {
  /** Path of a kubeconfig; absent: client-node's default (KUBECONFIG, ~/.kube/config, in-cluster). */
  readonly kubeconfig?: string;
  /** A context of the kubeconfig; absent: its current context. */
  readonly context?: string;
}

const target = (r: KindResource): ListTarget => ({
  kind: r.kind,
  group: r.group,
  version: r.version,
  plural: r.plural,
  namespaced: !r.clusterScoped,
});

function loadKubeConfig(o: ReadClusterOptions): KubeConfig {
  const kc = new KubeConfig();
  if (o.kubeconfig) kc.loadFromFile(o.kubeconfig);
  else kc.loadFromDefault();
  if (o.context) kc.setCurrentContext(o.context);
  return kc;
}

/** What the controller reads and the live analyzers' facts (src/analyze/live/cluster-read.ts). */
export async function readCluster(o: ReadClusterOptions, kc = loadKubeConfig(o)): Promise<ClusterRead> {
  const istioVersion = await detectIstioApiVersion(kc);
  const kinds = [...istioResources(istioVersion), ...aerakiResources(createPluginKinds()), SERVICE_RESOURCE];
  return readClusterObjects(kc, o, kinds.map(target));
}

/** `aeraki analyze` against a cluster: the options of an analysis, what to read, and files to add to it. */
export interface AnalyzeClusterOptions extends AnalyzeOptions, ReadClusterOptions, Partial<FileLimits> {
  /** Files whose objects are analysed with the cluster's, winning over a cluster object of the same name. */
  readonly files: readonly string[];
}

/**
 * Reads the cluster (readCluster) and the files, and runs every analyzer (offline and live) over them: sorted
 * messages, those of `-n`'s namespace only when it is given. Rejects when the cluster cannot be reached at all.
 */
export async function analyzeCluster(o: AnalyzeClusterOptions): Promise<AnalysisMessage[]> {
  const { raws, cluster } = await readCluster(o);
  const files =
    o.files.length > 0 ? readLocatedObjects(o.files, fileLimitsOf(o), o.namespace) : { raws: [], issues: [] };
  const locate = 'locate' in files ? { locate: files.locate } : {};
  const input = analysisInputOf([...raws, ...files.raws], files.issues, { ...o, ...locate }, cluster);
  return runAnalysis(input, o.namespace !== undefined ? { namespace: o.namespace } : {});
}
