// The conformance suite every generator runs (DESIGN.md habit 8), over every fixture input: deterministic
// output, valid and unique Kubernetes names, owner label set, inputs never mutated, every issue naming its
// object and field, and no source failing on warnings alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fillStore, parseRawObjects } from '../../src/controller/file-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { MANAGER_LABEL, MANAGER_VALUE } from '../../src/model/constants.ts';
import type { Generator } from '../../src/model/generator.ts';
import { hasErrors, severityOf } from '../../src/model/result.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { isDns1123Subdomain } from '../../src/util/names.ts';
import { assertIssueShape, deepFreeze, loadCorpus, type FixtureInput } from './corpus.ts';
import { PARSE_OPTIONS } from '../support/kinds.ts';

const corpus = loadCorpus();

function storeFor(input: FixtureInput): ConfigStore {
  const rootNamespace = input.args.includes('--root-namespace')
    ? (input.args[input.args.indexOf('--root-namespace') + 1] ?? 'istio-system')
    : 'istio-system';
  const store = new ConfigStore({ rootNamespace });
  const parsed = parseRawObjects(input.raws, rootNamespace, [], PARSE_OPTIONS);
  for (const o of parsed.objects) deepFreeze(o);
  fillStore(store, parsed);
  return store;
}

function checkGenerator(generator: Generator): void {
  describe(`generator ${generator.name}`, () => {
    it('claims at least one protocol', () => assert.ok(generator.protocols.length > 0));
    for (const input of corpus) {
      it(`conforms on ${input.name}`, () => {
        const store = storeFor(input);
        for (const namespaceScope of [false, true]) {
          const first = generateAll(store, [generator], { namespaceScope });
          const second = generateAll(store, [generator], { namespaceScope });
          assert.equal(JSON.stringify(second), JSON.stringify(first), 'same input, same bytes');
          const seen = new Set<string>();
          for (const o of first.objects) {
            assert.ok(isDns1123Subdomain(o.metadata.name), `invalid name ${o.metadata.name}`);
            assert.ok(isDns1123Subdomain(o.metadata.namespace), `invalid namespace ${o.metadata.namespace}`);
            const key = `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;
            assert.ok(!seen.has(key), `duplicate ${key}`);
            seen.add(key);
            assert.equal(o.metadata.labels[MANAGER_LABEL], MANAGER_VALUE, `${key} lacks the owner label`);
            if (o.kind === 'EnvoyFilter') assert.ok(o.spec.configPatches.length > 0, `${key} has no patch`);
          }
          first.issues.forEach(assertIssueShape);
          for (const p of first.unhandledPorts) {
            assertIssueShape(p.warning);
            assert.equal(severityOf(p.warning), 'warning');
          }
          // Only an error fails a source: warnings alone never keep a source's old output in place.
          if (first.failedSources.size > 0)
            assert.ok(hasErrors(first.issues), 'a source failed without an error');
        }
      });
    }
  });
}

describe('generator conformance', () => {
  const generators = createGenerators();
  it('no two generators claim the same protocol', () => {
    const claimed = generators.flatMap((g) => g.protocols);
    assert.equal(new Set(claimed).size, claimed.length);
  });
  generators.forEach(checkGenerator);
  it('the corpus is not empty', () => assert.ok(corpus.length >= 30));
  it('every generator produces output on some corpus input', () => {
    for (const generator of generators) {
      const produced = corpus.some(
        (input) => generateAll(storeFor(input), [generator], { namespaceScope: false }).objects.length > 0,
      );
      assert.ok(produced, `${generator.name} generates nothing on the whole corpus`);
    }
  });

  it('the corpus has RedisServices and RedisDestinations', () => {
    const kinds = new Set(corpus.flatMap((c) => c.raws.map((r) => (r as { kind?: unknown }).kind)));
    assert.ok(kinds.has('RedisService') && kinds.has('RedisDestination') && kinds.has('Secret'));
  });
});
