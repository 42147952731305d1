/**
 * The text form, istioctl analyze's: `Error [AER0004] (MetaRouter shop/orders spec.hosts[0] rpc.yaml:7:5) message`,
 * one line per message (`Warning`, `Info`): the object, the field, and where it was written (`file:line:column`,
 * as istioctl names `file:line` in the parentheses: istio/istio pkg/config/analysis/diag/message.go, Origin, at
 * 1.24.0); istioctl's `No validation issues found ...` line when there are none, naming the namespace analysed
 * when there is one (istioctl's `... in namespace: <ns>.`, istioctl/pkg/analyze/analyze.go at 1.24.0).
 */
import { refString } from '../../model/result.ts';
import { escapeControl } from '../../util/control-chars.ts';
import type { AnalysisMessage, AnalysisSeverity } from '../types.ts';

const LABEL: Readonly<Record<AnalysisSeverity, string>> = {
  error: 'Error',
  warning: 'Warning',
  info: 'Info',
};

/** `file:line:column`, `file:line` or `file`; '' without a file. */
export function placeOf(m: Pick<AnalysisMessage, 'file' | 'line' | 'column'>): string {
  if (m.file === undefined) return '';
  if (m.line === undefined) return m.file;
  return `${m.file}:${m.line}${m.column !== undefined ? `:${m.column}` : ''}`;
}

export function textLine(m: AnalysisMessage): string {
  const parts: string[] = [];
  if (m.ref?.kind === 'File') {
    // A file's own problem: the file once, with its line and column (`File x.yaml:8:3`).
    parts.push(`File ${placeOf({ ...m, file: m.file ?? m.ref.name })}`);
    if (m.path) parts.push(m.path);
  } else {
    if (m.ref) parts.push(refString(m.ref));
    if (m.ref && m.path) parts.push(m.path);
    if (placeOf(m) !== '') parts.push(placeOf(m));
  }
  const where = parts.length > 0 ? ` (${parts.join(' ')})` : '';
  return escapeControl(`${LABEL[m.code.severity]} [${m.code.code}]${where} ${m.message}`);
}

/** The lines of `messages`; with none, istioctl's line, naming `namespace` when the analysis was limited to one. */
export function formatText(messages: readonly AnalysisMessage[], namespace?: string): string {
  if (messages.length === 0) {
    return namespace === undefined
      ? 'No validation issues found when analyzing the input.\n'
      : `No validation issues found when analyzing namespace: ${namespace}.\n`;
  }
  return messages.map((m) => `${textLine(m)}\n`).join('');
}
