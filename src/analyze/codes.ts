/**
 * Every analyzer (offline ones, then live ones) and every code they may report: the one list the reference
 * (docs/analyze.md), the SARIF rules and the tests are made from.
 */
import { LIVE_ANALYZERS } from './live/index.ts';
import { OFFLINE_ANALYZERS } from './offline/index.ts';
import type { AnalysisCode, AnalysisSeverity, Analyzer } from './types.ts';

export const ALL_ANALYZERS: readonly Analyzer[] = [...OFFLINE_ANALYZERS, ...LIVE_ANALYZERS];

/** Every code, in code order. */
export const ANALYSIS_CODES: readonly AnalysisCode[] = ALL_ANALYZERS.flatMap((a) => a.codes).sort((a, b) =>
  a.code < b.code ? -1 : a.code > b.code ? 1 : 0,
);

/** The reference page, relative to the repository root, and a code's anchor in it (`docs/analyze.md#aer0004`). */
export const REFERENCE_PAGE = 'docs/analyze.md';

export function referenceAnchor(code: AnalysisCode): string {
  return `${REFERENCE_PAGE}#${code.code.toLowerCase()}`;
}

/** Worst first. */
export const SEVERITY_RANK: Readonly<Record<AnalysisSeverity, number>> = { error: 0, warning: 1, info: 2 };

/** Whether `severity` is at or above `threshold` (`error` is above `warning`, above `info`). */
export function atLeast(severity: AnalysisSeverity, threshold: AnalysisSeverity): boolean {
  return SEVERITY_RANK[severity] <= SEVERITY_RANK[threshold];
}
