/**
 * The code reference, docs/analyze.md, made from the codes themselves (codes.ts) so it never drifts: one section
 * per code (anchor `#aer0004`, the one the JSON and SARIF outputs link to) with its name, severity, whether it
 * needs a cluster, why it matters, what to do and an example input. `npm run docs:analyze` writes it; a test fails
 * when the file is stale. Pure.
 */
import type { AnalysisCode } from './types.ts';

function section(c: AnalysisCode): string {
  return [
    `## ${c.code}`,
    '',
    `**${c.name}**: ${c.severity}${c.live ? ', live only (`--kubeconfig`)' : ''}`,
    '',
    `- Why: ${c.why}`,
    `- Fix: ${c.fix}`,
    '',
    'Example input:',
    '',
    '```yaml',
    c.example.trimEnd(),
    '```',
    '',
  ].join('\n');
}

export function referenceMarkdown(codes: readonly AnalysisCode[]): string {
  const rows = codes.map(
    (c) =>
      `| [${c.code}](#${c.code.toLowerCase()}) | ${c.name} | ${c.severity} | ${c.live ? 'live' : 'offline and live'} |`,
  );
  return [
    '# `aeraki analyze`: the codes',
    '',
    '<!-- Generated from src/analyze (codes.ts and the analyzers) by `npm run docs:analyze`; do not edit. -->',
    '',
    'Each message of `aeraki analyze` has a stable code; a code is never reused for another meaning. Offline',
    'analysis (`-f FILES`) finds the offline codes; live codes need a cluster. `--fail-on` sets the severity that',
    'makes the command exit 1 (default `error`).',
    '',
    '| Code | Name | Severity | Found |',
    '|---|---|---|---|',
    ...rows,
    '',
    ...codes.map(section),
  ].join('\n');
}
