/**
 * The text form, istioctl analyze's: `Error [AER0004] (MetaRouter shop/orders spec.hosts[0]) message`, one line per
 * message (`Warning`, `Info`); istioctl's `No validation issues found ...` line when there are none.
 */
import { refString } from '../../model/result.ts';
import { escapeControl } from '../../util/control-chars.ts';
import type { AnalysisMessage, AnalysisSeverity } from '../types.ts';

const LABEL: Readonly<Record<AnalysisSeverity, string>> = {
  error: 'Error',
  warning: 'Warning',
  info: 'Info',
};

export function textLine(m: AnalysisMessage): string {
  const where = m.ref ? ` (${refString(m.ref)}${m.path ? ` ${m.path}` : ''})` : '';
  return escapeControl(`${LABEL[m.code.severity]} [${m.code.code}]${where} ${m.message}`);
}

export function formatText(messages: readonly AnalysisMessage[]): string {
  if (messages.length === 0) return 'No validation issues found when analyzing the input.\n';
  return messages.map((m) => `${textLine(m)}\n`).join('');
}
