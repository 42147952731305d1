// AER0001 and AER0003..AER0006 recognise the controller's findings by their rule (ConfigIssue.rule), set where the
// issue is made: a reworded message keeps its code, and an issue without the rule never gets one, whatever its text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runAnalysis } from '../../src/analyze/run.ts';
import type { AnalysisInput } from '../../src/analyze/types.ts';
import type { ConfigIssue } from '../../src/model/result.ts';
import { codesOf, inputOf, serviceEntry } from './support.ts';

const HOST = 'orders.shop.svc.cluster.local';

const router = (name: string, host: string, created: string) => `apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: ${name}, namespace: shop, creationTimestamp: '${created}'}
spec:
  hosts: [${host}]
  routes:
  - route: [{destination: {host: ${host}}}]
---
`;

/** [code, rule, input]: each finding as the controller makes it. */
const CASES: readonly [string, string, string][] = [
  ['AER0001', 'port-unknown-segment', serviceEntry('orders', ['tcp-thrift:9090', 'tcp-dubo:20880'])],
  ['AER0003', 'codec-missing', serviceEntry('orders', ['tcp-metaprotocol-trpc:8080'])],
  ['AER0004', 'no-addresses', serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880'], { addresses: [] })],
  [
    'AER0005',
    'metarouter-host-not-found',
    router('orders', 'ordres.shop.svc.cluster.local', '2026-01-01T00:00:00Z') +
      serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880']),
  ],
  [
    'AER0006',
    'metarouter-host-claimed',
    serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880']) +
      router('old', HOST, '2026-01-01T00:00:00Z') +
      router('new', HOST, '2026-02-01T00:00:00Z'),
  ],
];

function withIssues(input: AnalysisInput, change: (i: ConfigIssue, n: number) => ConfigIssue): AnalysisInput {
  return { ...input, issues: input.issues.map(change) };
}

describe('issue rules', () => {
  it('are set where the issues are made', () => {
    for (const [code, rule, text] of CASES) {
      const rules = inputOf(text).issues.map((i) => i.rule);
      assert.ok(rules.includes(rule as ConfigIssue['rule']), `${code}: ${JSON.stringify(rules)}`);
    }
  });

  it('keep each code when the message is reworded', () => {
    for (const [code, , text] of CASES) {
      const input = withIssues(inputOf(text), (i, n) => ({ ...i, message: `reworded finding ${n}` }));
      assert.deepEqual(codesOf(runAnalysis(input)), [code], code);
    }
  });

  it('give no code to an issue without its rule, even with the very same text: the catch-all reports it', () => {
    for (const [code, , text] of CASES) {
      const input = withIssues(inputOf(text), (i) => {
        const { rule: _rule, ...rest } = i;
        return rest;
      });
      const codes = codesOf(runAnalysis(input));
      // AER0001 comes from the port names themselves; the generation warning it covered is reported on its own.
      const expected =
        code === 'AER0001' ? ['AER0001', 'AER0011'] : code === 'AER0003' ? ['AER0010'] : ['AER0011'];
      assert.deepEqual(codes, expected, code);
    }
  });

  it('leave the issues without a rule alone (a port nothing handles is still a ConfigWarning)', () => {
    const input = inputOf(serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880', 'tcp-mongo:27017']));
    assert.ok(input.issues.every((i) => i.rule === undefined));
    assert.deepEqual(codesOf(runAnalysis(input)), ['AER0011']);
  });
});
