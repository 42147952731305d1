/** The analyzers that need a cluster's facts (AnalysisInput.cluster); they report nothing offline. */
import type { Analyzer } from '../types.ts';
import { ambientAnalyzer } from './ambient.ts';
import { conflictingAnalyzer } from './conflicting.ts';
import { contribProxyAnalyzer } from './contrib-proxy.ts';
import { istioVersionAnalyzer } from './istio-version.ts';
import { metaProtocolProxyAnalyzer } from './meta-protocol-proxy.ts';
import { orphanedAnalyzer } from './orphaned.ts';
import { subsetPodsAnalyzer } from './subset-pods.ts';
import { unreadableAnalyzer } from './unreadable-analyzer.ts';

/** In code order (AER0101 ...); AER0109 is reported by the Istio version analyzer with AER0105. */
export const LIVE_ANALYZERS: readonly Analyzer[] = [
  subsetPodsAnalyzer,
  ambientAnalyzer,
  metaProtocolProxyAnalyzer,
  contribProxyAnalyzer,
  istioVersionAnalyzer,
  orphanedAnalyzer,
  conflictingAnalyzer,
  unreadableAnalyzer,
];
