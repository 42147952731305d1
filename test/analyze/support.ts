// Helpers of the analyze tests: YAML text -> the input analysisInputOf makes of it -> the messages of the run.
import yaml from 'js-yaml';
import { runAnalysis, type RunOptions } from '../../src/analyze/run.ts';
import type { AnalysisInput, AnalysisMessage } from '../../src/analyze/types.ts';
import { analysisInputOf, type AnalyzeOptions } from '../../src/app/analyze.ts';

export const OPTIONS: AnalyzeOptions = {
  rootNamespace: 'istio-system',
  namespaceScope: false,
  vipAllocation: false,
  metaProtocolImages: [],
  contribImages: [],
};

export function inputOf(text: string, o: Partial<AnalyzeOptions> = {}): AnalysisInput {
  const raws = yaml
    .loadAll(text, undefined, { schema: yaml.CORE_SCHEMA })
    .filter((d) => d !== null && d !== undefined);
  return analysisInputOf(raws, [], { ...OPTIONS, ...o });
}

export function analyzeText(
  text: string,
  o: Partial<AnalyzeOptions> = {},
  run: RunOptions = {},
): AnalysisMessage[] {
  return runAnalysis(inputOf(text, o), run);
}

/** The codes of the messages, sorted, without repeats. */
export function codesOf(messages: readonly AnalysisMessage[]): string[] {
  return [...new Set(messages.map((m) => m.code.code))].sort();
}

/** The messages of one code. */
export function withCode(messages: readonly AnalysisMessage[], code: string): AnalysisMessage[] {
  return messages.filter((m) => m.code.code === code);
}

/** A ServiceEntry with the given ports (`name:number`) and addresses. */
export function serviceEntry(
  name: string,
  ports: readonly string[],
  extra: {
    namespace?: string;
    addresses?: readonly string[];
    labels?: Record<string, string>;
    host?: string;
  } = {},
): string {
  const ns = extra.namespace ?? 'shop';
  const host = extra.host ?? `${name}.${ns}.svc.cluster.local`;
  const addresses = extra.addresses ?? ['240.240.0.10'];
  const labels = extra.labels ? `, labels: ${JSON.stringify(extra.labels)}` : '';
  const portList = ports.map((p) => {
    const [n, num] = p.split(':');
    return `{number: ${num}, name: "${n}", protocol: TCP}`;
  });
  return `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: ${name}, namespace: ${ns}${labels}}
spec:
  hosts: [${host}]
  addresses: ${JSON.stringify(addresses)}
  ports: [${portList.join(', ')}]
---
`;
}
