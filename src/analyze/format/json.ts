/**
 * `-o json`: a stable array, one object per message in run order, every key always present (`null` when it does
 * not apply), so scripts can rely on the shape.
 */
import { referenceAnchor } from '../codes.ts';
import type { AnalysisMessage, AnalysisSeverity } from '../types.ts';

export interface JsonMessage {
  readonly code: string;
  readonly name: string;
  readonly severity: AnalysisSeverity;
  readonly object: { readonly kind: string; readonly namespace: string; readonly name: string } | null;
  readonly path: string;
  readonly message: string;
  readonly file: string | null;
  /** 1-based line of the field (`path`, or the object when empty) in `file`; of the error, for a file's own. */
  readonly line: number | null;
  /** 1-based column, with the line. */
  readonly column: number | null;
  /** The code's section of the reference (`docs/analyze.md#aer0004`). */
  readonly documentation: string;
}

export function jsonMessage(m: AnalysisMessage): JsonMessage {
  return {
    code: m.code.code,
    name: m.code.name,
    severity: m.code.severity,
    object: m.ref ? { kind: m.ref.kind, namespace: m.ref.namespace, name: m.ref.name } : null,
    path: m.path ?? '',
    message: m.message,
    file: m.file ?? null,
    line: m.line ?? null,
    column: m.line !== undefined ? (m.column ?? null) : null,
    documentation: referenceAnchor(m.code),
  };
}

export function formatJson(messages: readonly AnalysisMessage[]): string {
  return `${JSON.stringify(messages.map(jsonMessage), null, 2)}\n`;
}
