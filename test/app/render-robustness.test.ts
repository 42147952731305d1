// Bad input never throws: every field of every fixture object is replaced by values of the wrong type (and
// removed); parsing must turn that into issues, and whatever still parses must generate without throwing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { parseRawObjects } from '../../src/controller/file-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { loadCases } from './fixture-cases.ts';
import { PARSE_OPTIONS } from '../support/kinds.ts';

const REPLACEMENTS: unknown[] = [undefined, null, -1, '', true, [null], { a: null }];

function flattenList(doc: unknown): unknown[] {
  const d = doc as { kind?: unknown; items?: unknown };
  return d?.kind === 'List' && Array.isArray(d.items) ? d.items : [doc];
}

/** Every path (as key lists) inside `value`, depth-first. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (Array.isArray(value)) {
    value.forEach((v, i) => out.push([...prefix, i], ...paths(v, [...prefix, i])));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) out.push([...prefix, k], ...paths(v, [...prefix, k]));
  }
  return out;
}

function withValue(root: unknown, path: (string | number)[], replacement: unknown): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let cur = copy;
  for (const key of path.slice(0, -1)) cur = cur[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (replacement === undefined) delete cur[last];
  else cur[last] = structuredClone(replacement);
  return copy;
}

describe('robustness: wrong types anywhere never throw', () => {
  const generators = createGenerators();
  for (const c of loadCases()) {
    it(c.name, () => {
      const docs = parseAllDocuments(readFileSync(c.input, 'utf8'));
      const raws = (Array.isArray(docs) ? docs : [docs]).flatMap((d) => flattenList(d.toJS()));
      const root = c.args.includes('--root-namespace')
        ? (c.args[c.args.indexOf('--root-namespace') + 1] ?? '')
        : 'istio-system';
      let runs = 0;
      raws.forEach((raw, index) => {
        for (const p of paths(raw)) {
          for (const r of REPLACEMENTS) {
            const mutated = raws.map((o, i) => (i === index ? withValue(raw, p, r) : o));
            const loaded = parseRawObjects(mutated, root, [], PARSE_OPTIONS);
            const store = new ConfigStore({ rootNamespace: root, mesh: loaded.mesh });
            for (const o of loaded.objects) store.upsert(o);
            assert.doesNotThrow(
              () => {
                generateAll(store, generators, { namespaceScope: false });
                buildRouteConfigurations(store);
              },
              `${c.name}: ${p.join('.')} = ${JSON.stringify(r)}`,
            );
            runs++;
          }
        }
      });
      assert.ok(runs > 0);
    });
  }
});
