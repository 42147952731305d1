import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { THRIFT_PROXY_FILTER } from '../../../src/model/constants.ts';
import type { FilterDraft } from '../../../src/model/generator.ts';
import { formatIssue, type ConfigIssue } from '../../../src/model/result.ts';
import { createThriftGenerator } from '../../../src/plugins/thrift/index.ts';
import { CONTEXT_SOURCES, expectedFilters, fixtureContexts, fixturesDir } from '../dubbo/fixture-context.ts';

// The thrift_proxy EnvoyFilters of each render fixture, generated from the fixture's input and compared (names and
// whole spec) with the fixture's expected output; a case that expects exit 1 must produce issues that contain every
// line of its expected-stderr.txt (bar the generic `error:`), and a case that expects exit 0 none.
const CASES = ['21-thrift-native-split', '28-d4-mixed-protocol-ports', '35-d9-thrift-method-match'];

function read(caseName: string, file: string): string {
  return readFileSync(path.join(fixturesDir, caseName, file), 'utf8');
}

describe('thrift golden fixtures', () => {
  for (const [source, contextsOf] of Object.entries(CONTEXT_SOURCES)) {
    for (const name of CASES) {
      it(`${name} (${source})`, () => {
        const generator = createThriftGenerator();
        const drafts: FilterDraft[] = [];
        const issues: ConfigIssue[] = [];
        const contexts = contextsOf(name, 'thrift');
        assert.ok(contexts.length > 0, 'the case has thrift ports');
        for (const ctx of contexts) {
          const result = generator.generateSidecar(ctx);
          assert.ok(result.ok, JSON.stringify(result.issues));
          issues.push(...result.issues);
          drafts.push(...result.value);
        }
        const expected = expectedFilters(name, THRIFT_PROXY_FILTER);
        assert.deepEqual(drafts.map((d) => d.name).sort(), [...expected.keys()].sort());
        for (const draft of drafts) {
          assert.deepEqual(draft.spec, expected.get(draft.name), draft.name);
        }

        const exit = read(name, 'expected-exit').trim();
        if (exit === '0') {
          assert.deepEqual(issues, []);
        } else {
          const stderr = issues.map((i) => `error: ${formatIssue(i)}`).join('\n');
          for (const line of read(name, 'expected-stderr.txt').split('\n').filter(Boolean)) {
            assert.ok(stderr.includes(line), `stderr lacks ${JSON.stringify(line)}:\n${stderr}`);
          }
        }
      });
    }
  }

  it('35: the prefix method match is reported on its field', () => {
    const issues = fixtureContexts('35-d9-thrift-method-match', 'thrift').flatMap(
      (ctx) => createThriftGenerator().generateSidecar(ctx).issues,
    );
    assert.deepEqual(
      issues.map((i) => [i.ref, i.path]),
      [
        [
          { kind: 'VirtualService', namespace: 'rpc', name: 'echo-by-prefix' },
          'spec.http[0].match[0].method',
        ],
      ],
    );
  });
});
