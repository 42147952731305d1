/** The analyzers that need a cluster's facts (AnalysisInput.cluster); they report nothing offline. */
import type { Analyzer } from '../types.ts';

export const LIVE_ANALYZERS: readonly Analyzer[] = [];
