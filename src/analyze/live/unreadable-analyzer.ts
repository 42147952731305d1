/** AER0108 ClusterUnreadable: each thing a live analysis could not read (ClusterFacts.unreadable), as information. */
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer } from '../types.ts';
import { unreadableLine } from './unreadable.ts';

export const CLUSTER_UNREADABLE: AnalysisCode = {
  code: 'AER0108',
  name: 'ClusterUnreadable',
  severity: 'info',
  why: 'Part of the cluster could not be read (a CRD not installed, a kind the user may not list): checks that need it were skipped.',
  fix: 'Install the CRD if the controller needs it, or analyse with a kubeconfig allowed to list that kind.',
  live: true,
  example: `# No objects needed.
# In the cluster: the user may not list pods (RBAC answers 403), so the proxy-image checks are skipped.`,
};

function analyze(input: AnalysisInput): AnalysisMessage[] {
  return (input.cluster?.unreadable ?? []).map((u) => ({
    code: CLUSTER_UNREADABLE,
    message: unreadableLine(u),
  }));
}

export const unreadableAnalyzer: Analyzer = { codes: [CLUSTER_UNREADABLE], analyze };
