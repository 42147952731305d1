// Waypoint render cases (test/fixtures/waypoint): `render --waypoint-envoyfilters` prints the expected objects and
// issues; each waypoint EnvoyFilter parses strictly against ../shared/protos-2026 (Istio 1.30's EnvoyFilter with
// targetRefs, Envoy's API at istio-proxy 1.30) and reaches its waypoint as istiod attaches policies
// (model/ambient/envoyfilter.ts). Without the flag, or without ambient inputs, output is what it was.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { render, type RenderOptions } from '../../src/app/render.ts';
import { reachesWaypoint } from '../../src/model/ambient/envoyfilter.ts';
import type { EnvoyFilterObject } from '../../src/model/objects.ts';
import { formatIssue } from '../../src/model/result.ts';
import { loadCases, optionsOf, repoRoot } from '../app/fixture-cases.ts';
import { formatProblem, isObject, Proto3JsonChecker, RealProtos } from '../conformance/real-protos.ts';

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

const BASE: RenderOptions = {
  files: [],
  output: 'json',
  routes: false,
  rootNamespace: 'istio-system',
  namespaceScope: false,
};

interface Rendered {
  readonly items: EnvoyFilterObject[];
  readonly stdout: string;
  readonly issues: string[];
}

function renderCase(files: string[], extra: Partial<RenderOptions> = {}): Rendered {
  const out = render({ ...BASE, ...extra, files });
  const doc = JSON.parse(out.stdout) as { items: EnvoyFilterObject[] };
  return { items: doc.items, stdout: out.stdout, issues: out.issues.map(formatIssue) };
}

describe('waypoint render cases', () => {
  for (const name of cases) {
    const dir = path.join(casesDir, name);
    const input = path.join(dir, 'input.yaml');
    const out = renderCase([input], { waypointFilters: true });

    it(`${name}: the expected objects and issues`, () => {
      const expected = JSON.parse(
        readFileSync(path.join(dir, 'expected-envoyfilters.json'), 'utf8'),
      ) as unknown;
      assert.deepEqual(JSON.parse(out.stdout), expected);
      assert.deepEqual(out.issues, expectedLines(path.join(dir, 'expected-warnings.txt')));
    });

    it(`${name}: every waypoint filter parses against protos-2026 and reaches its waypoint`, () => {
      for (const o of out.items.filter(isWaypointFilter)) {
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

    it(`${name}: without the flag, the sidecar output alone and no word on the ambient kinds`, () => {
      const off = renderCase([input]);
      assert.deepEqual(
        off.items,
        out.items.filter((o) => !isWaypointFilter(o)),
      );
      assert.deepEqual(
        off.issues,
        out.issues.filter((i) => !/Namespace|Gateway|waypoint/.test(i)),
      );
    });
  }
});

describe('render --waypoint-envoyfilters on every render fixture', () => {
  it('prints byte-identical output and the same issues as without the flag', () => {
    for (const c of loadCases().filter((x) => !x.routes)) {
      const o = optionsOf(c);
      const files = [c.input];
      const options = {
        ...BASE,
        rootNamespace: o.rootNamespace,
        namespaceScope: o.namespaceScope,
        output: 'yaml' as const,
      };
      const off = render({ ...options, files });
      const on = render({ ...options, files, waypointFilters: true });
      assert.equal(on.stdout, off.stdout, c.name);
      assert.deepEqual(on.issues, off.issues, c.name);
    }
  });
});
