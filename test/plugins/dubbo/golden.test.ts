import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DUBBO_PROXY_FILTER } from '../../../src/model/constants.ts';
import type { FilterDraft } from '../../../src/model/generator.ts';
import { createDubboGenerator } from '../../../src/plugins/dubbo/index.ts';
import { CONTEXT_SOURCES, expectedFilters } from './fixture-context.ts';

// The dubbo_proxy EnvoyFilters of each render fixture, generated from the fixture's input and compared (names and
// whole spec) with the fixture's expected output. Placement (namespace) is the caller's job; all these cases
// place into the root namespace.
const CASES = [
  '19-dubbo-native-default',
  '20-dubbo-native-virtualservice',
  '27-d3-dubbo-without-interface',
  '28-d4-mixed-protocol-ports',
  '30-d5-sorted-filter-matchers',
];

describe('dubbo golden fixtures', () => {
  for (const [source, contextsOf] of Object.entries(CONTEXT_SOURCES)) {
    for (const name of CASES) {
      it(`${name} (${source})`, () => {
        const generator = createDubboGenerator();
        const drafts: FilterDraft[] = [];
        const contexts = contextsOf(name, 'dubbo');
        assert.ok(contexts.length > 0, 'the case has dubbo ports');
        for (const ctx of contexts) {
          const result = generator.generateSidecar(ctx);
          assert.ok(result.ok, JSON.stringify(result.issues));
          assert.deepEqual(result.issues, []);
          drafts.push(...result.value);
        }
        const expected = expectedFilters(name, DUBBO_PROXY_FILTER);
        assert.deepEqual(drafts.map((d) => d.name).sort(), [...expected.keys()].sort());
        for (const draft of drafts) {
          assert.deepEqual(draft.spec, expected.get(draft.name), draft.name);
        }
      });
    }
  }
});
