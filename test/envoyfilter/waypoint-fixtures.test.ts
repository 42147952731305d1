// Waypoint render cases (test/fixtures/waypoint): with waypoint filters on, every output is the expected one, every
// issue the expected one; each waypoint EnvoyFilter parses strictly against ../shared/protos-2026 (Istio 1.30's
// EnvoyFilter with targetRefs, Envoy's API at istio-proxy 1.30) and reaches its waypoint as istiod attaches
// policies (model/ambient/envoyfilter.ts). Without the option, or without ambient inputs, output is what it was.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadStore } from '../../src/app/render.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { reachesWaypoint } from '../../src/model/ambient/envoyfilter.ts';
import type { EnvoyFilterObject } from '../../src/model/objects.ts';
import { formatIssue } from '../../src/model/result.ts';
import { createGenerators, createProtocolNames } from '../../src/plugins/registry.ts';
import { sortKeys } from '../../src/util/json.ts';
import { loadCases, optionsOf, repoRoot } from '../app/fixture-cases.ts';
import { formatProblem, isObject, Proto3JsonChecker, RealProtos } from '../conformance/real-protos.ts';
import { ambientViewOf, generateWaypointCase } from './waypoint-support.ts';

const casesDir = path.join(repoRoot, 'test/fixtures/waypoint');
const cases = readdirSync(casesDir).filter((n) => /^\d/.test(n));
const checker = new Proto3JsonChecker(new RealProtos(path.resolve(repoRoot, '../shared/protos-2026')));

const isWaypointFilter = (o: { metadata: { name: string } }) =>
  o.metadata.name.startsWith('aeraki-waypoint-');

/** Problems of an EnvoyFilter spec as Istio 1.30's EnvoyFilter and of each NETWORK_FILTER value as Envoy's Filter. */
function protoProblems(filter: EnvoyFilterObject): string[] {
  const problems = checker.check('istio.networking.v1alpha3.EnvoyFilter', filter.spec, '$.spec');
  filter.spec.configPatches.forEach((p, i) => {
    assert.equal(p.applyTo, 'NETWORK_FILTER');
    if (isObject(p.patch.value)) {
      const at = `$.spec.configPatches[${i}].patch.value`;
      problems.push(...checker.check('envoy.config.listener.v3.Filter', p.patch.value, at));
    }
  });
  return problems.map(formatProblem);
}

const expectedLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

describe('waypoint render cases', () => {
  for (const name of cases) {
    const dir = path.join(casesDir, name);
    const input = path.join(dir, 'input.yaml');
    const out = generateWaypointCase(input, path.join(dir, 'ambient.yaml'));

    it(`${name}: the expected objects and issues`, () => {
      const expected = JSON.parse(
        readFileSync(path.join(dir, 'expected-envoyfilters.json'), 'utf8'),
      ) as unknown;
      assert.deepEqual(sortKeys({ apiVersion: 'v1', kind: 'List', items: out.objects }), expected);
      assert.deepEqual(out.issues.map(formatIssue), expectedLines(path.join(dir, 'expected-warnings.txt')));
    });

    it(`${name}: every waypoint filter parses against protos-2026 and reaches its waypoint`, () => {
      for (const o of out.objects.filter(isWaypointFilter)) {
        assert.equal(o.kind, 'EnvoyFilter');
        const filter: EnvoyFilterObject = o;
        assert.deepEqual(protoProblems(filter), [], `${o.metadata.namespace}/${o.metadata.name}`);
        assert.equal(filter.spec.workloadSelector, undefined);
        const [ref, ...more] = filter.spec.targetRefs ?? [];
        assert.equal(more.length, 0);
        const waypoint = { namespace: o.metadata.namespace, name: ref?.name ?? '' };
        assert.ok(
          reachesWaypoint({ namespace: o.metadata.namespace, targetRefs: [ref!] }, waypoint, 'istio-system'),
        );
        for (const p of filter.spec.configPatches) {
          assert.deepEqual((p.match as { context?: string }).context, 'SIDECAR_INBOUND');
        }
      }
    });

    it(`${name}: without the option, the sidecar output alone`, () => {
      const { store } = loadStore([input], 'istio-system');
      const generators = createGenerators();
      const options = { namespaceScope: false, protocolNames: createProtocolNames(generators) };
      const off = generateAll(store, generators, options);
      assert.deepEqual(
        off.objects,
        out.objects.filter((o) => !isWaypointFilter(o)),
      );
      const noView = generateAll(store, generators, { ...options, waypointFilters: true });
      assert.deepEqual(noView.objects, off.objects);
    });
  }
});

describe('waypoint filters on, no service bound', () => {
  it('every render fixture gives the output it gives without the option', () => {
    const ambient = ambientViewOf({ namespaces: [], gateways: [], classes: [] });
    for (const c of loadCases().filter((x) => !x.routes)) {
      const o = optionsOf(c);
      const { store } = loadStore([c.input], o.rootNamespace);
      const generators = createGenerators();
      const options = { namespaceScope: o.namespaceScope, protocolNames: createProtocolNames(generators) };
      const off = generateAll(store, generators, options);
      const on = generateAll(store, generators, { ...options, waypointFilters: true, ambient });
      assert.deepEqual(on.objects, off.objects, c.name);
      assert.deepEqual(on.issues, off.issues, c.name);
    }
  });
});
