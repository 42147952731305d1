/**
 * Runs analyzers over an input: every message of every analyzer (offline, then live), located in its file when
 * the input knows where objects came from, without repeats, filtered to one namespace when asked (messages about
 * a cluster-scoped object, a file or the cluster as a whole are kept), sorted worst first, then by object, code,
 * field path and text. Pure.
 */
import { compareStrings } from '../model/order.ts';
import { refString, type ObjectRef } from '../model/result.ts';
import { ALL_ANALYZERS, SEVERITY_RANK } from './codes.ts';
import type { AnalysisInput, AnalysisMessage, Analyzer } from './types.ts';

export interface RunOptions {
  /** Only messages about objects of this namespace (and those about no namespace). */
  readonly namespace?: string;
}

function objectKey(ref: ObjectRef | undefined): string {
  return ref ? refString(ref) : '';
}

export function compareMessages(a: AnalysisMessage, b: AnalysisMessage): number {
  return (
    SEVERITY_RANK[a.code.severity] - SEVERITY_RANK[b.code.severity] ||
    compareStrings(objectKey(a.ref), objectKey(b.ref)) ||
    compareStrings(a.code.code, b.code.code) ||
    compareStrings(a.path ?? '', b.path ?? '') ||
    compareStrings(a.message, b.message)
  );
}

function located(m: AnalysisMessage, input: AnalysisInput): AnalysisMessage {
  if (m.file !== undefined || m.ref === undefined || input.locate === undefined) return m;
  const at = input.locate(m.ref, m.path ?? '');
  if (at === undefined) return m;
  return {
    ...m,
    file: at.file,
    ...(at.line !== undefined ? { line: at.line } : {}),
    ...(at.column !== undefined ? { column: at.column } : {}),
  };
}

function inScope(m: AnalysisMessage, namespace: string | undefined): boolean {
  return (
    namespace === undefined || m.ref === undefined || m.ref.namespace === '' || m.ref.namespace === namespace
  );
}

export function runAnalysis(
  input: AnalysisInput,
  options: RunOptions = {},
  analyzers: readonly Analyzer[] = ALL_ANALYZERS,
): AnalysisMessage[] {
  const seen = new Set<string>();
  const out: AnalysisMessage[] = [];
  for (const analyzer of analyzers) {
    for (const m of analyzer.analyze(input)) {
      if (!inScope(m, options.namespace)) continue;
      const key = [m.code.code, objectKey(m.ref), m.path ?? '', m.message].join('\u0000');
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(located(m, input));
    }
  }
  return out.sort(compareMessages);
}
