// yamlText against the `yaml` library's stringify(value, { lineWidth: 0 }): byte-identical on every fixture's
// render output and on values that reach each of its paths (plain, quoted and block strings, odd keys, numbers).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { render } from '../../src/app/render.ts';
import { sortKeys } from '../../src/util/json.ts';
import { writeYaml, yamlText } from '../../src/util/yaml-text.ts';
import { loadCases } from '../app/fixture-cases.ts';

const library = (v: unknown) => stringify(v, { lineWidth: 0 });

describe('yamlText', () => {
  it('writes what the yaml library writes for every fixture render output', () => {
    for (const c of loadCases()) {
      const { stdout } = render({
        files: [c.input],
        output: 'json',
        routes: false,
        rootNamespace: 'istio-system',
        namespaceScope: false,
      });
      const value = sortKeys(JSON.parse(stdout));
      assert.equal(yamlText(value), library(value), c.name);
    }
  });

  it('writes what the yaml library writes for scalars, keys and nesting of every shape', () => {
    const strings = [
      'abc',
      'a b',
      'true',
      'Null',
      'yes',
      '123',
      '0x1',
      '.inf',
      'a: b',
      'a #b',
      '- a',
      '@type',
      '*.foo',
      '',
      ' a',
      'a ',
      'a\nb',
      'a\nb\n',
      '  lead\nx',
      'x\n\n',
      '[a]',
      'a"b',
      "it's",
      '%x',
      '&x',
      '|x',
      'a\tb',
      '1_000',
      'été',
      'x'.repeat(300),
      'k: v\n- y',
    ];
    const numbers = [0, -0, 1, -7, 1.5, 1e21, Number.MAX_SAFE_INTEGER + 2, NaN, Infinity];
    const value = {
      strings,
      numbers,
      keyed: Object.fromEntries(strings.filter((s) => s.length < 100).map((s, i) => [s, i])),
      nested: { a: [[1, [2, { b: 'x\ny', c: [] }]], {}, [], null, true, undefined, { d: { e: 'a\nb' } }] },
      skipped: undefined,
      empty: {},
    };
    assert.equal(yamlText(value), library(value));
    for (const top of [[], {}, 'x', 1, null, [1, 2]]) assert.equal(yamlText(top), library(top));
  });

  it('writes sorted what the library writes for sortKeys(value), a List one item a piece, odd items by the library alone', () => {
    const odd = { ['k'.repeat(1100)]: 1, b: 'x' }; // a key the library writes in explicit `? ` form
    const shared = { z: 1, a: { y: [2, 1], b: 'q' } };
    const value = {
      kind: 'List',
      items: [shared, odd, { m: 'a\nb', a: [] }, shared],
      apiVersion: 'v1',
      empty: [],
      ['? key'.repeat(300)]: [1],
    };
    const pieces: string[] = [];
    writeYaml(value, (p) => pieces.push(p), { sorted: true });
    assert.equal(pieces.join(''), library(sortKeys(value)));
    assert.ok(pieces.length >= value.items.length + 2, 'one piece per item at least');
    assert.equal(yamlText(value, { sorted: true }), library(sortKeys(value)));
  });
});
