// `npm ci` on the supported Node prints no warning: every locked package's `engines.node` admits the lowest
// version package.json's `engines` admits, and every package with an install script has an `allowScripts` entry
// (npm 11 skips unlisted install scripts and warns about each; `npm install-scripts ls` lists them).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { repoRoot } from '../app/fixture-cases.ts';

interface Locked {
  readonly engines?: { readonly node?: string };
  readonly hasInstallScript?: boolean;
}

const read = (file: string): unknown => JSON.parse(readFileSync(`${repoRoot}/${file}`, 'utf8'));
const pkg = read('package.json') as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const lock = read('package-lock.json') as { packages: Record<string, Locked> };

type Version = readonly [number, number, number];

function version(text: string): Version {
  const [a = 0, b = 0, c = 0] = text.replace(/^v/, '').split('.').map(Number);
  return [a, b, c];
}

function compare(x: Version, y: Version): number {
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** One comparator of npm's range syntax as engines use it: `>=20.19`, `^20.19.0`, `20`, `>= 20.16.0`. */
function admits(comparator: string, v: Version): boolean {
  if (comparator === '*' || comparator === 'x') return true;
  const m = /^(>=|>|<=|<|\^|~)?\s*v?(\d+(?:\.\d+){0,2})$/.exec(comparator.trim().replace(/(\.[x*])+$/, ''));
  if (!m) throw new Error(`range syntax not understood: ${comparator}`);
  const bound = version(m[2]!);
  const parts = m[2]!.split('.').length;
  const c = compare(v, bound);
  switch (m[1]) {
    case '>=':
      return c >= 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    case '<':
      return c < 0;
    case '^':
      return c >= 0 && v[0] === bound[0];
    case '~':
      return c >= 0 && v[0] === bound[0] && v[1] === bound[1];
    default: // `20` or `20.19`: that major (and minor)
      return v[0] === bound[0] && (parts < 2 || v[1] === bound[1]) && (parts < 3 || c === 0);
  }
}

/** npm's range: `||` between alternatives, spaces between comparators that all must hold. */
function satisfies(v: Version, range: string): boolean {
  return range.split('||').some((alt) =>
    (
      alt
        .trim()
        .replace(/(>=|<=|>|<)\s+/g, '$1')
        .match(/\S+/g) ?? []
    ).every((c) => admits(c, v)),
  );
}

describe('a fresh install on the supported Node is clean (package.json, package-lock.json)', () => {
  const lowest = version(/^>=\s*(\d+\.\d+(?:\.\d+)?)$/.exec(pkg.engines.node)?.[1] ?? 'x');

  it('engines.node is a lower bound, and the machines here run a version it admits', () => {
    assert.ok(Number.isFinite(lowest[0]), `engines.node is not ">=x.y": ${pkg.engines.node}`);
    assert.ok(satisfies(version(process.version), pkg.engines.node));
  });

  it('every locked package admits that lowest version (no EBADENGINE)', () => {
    const refused = Object.entries(lock.packages)
      .filter(([key, p]) => key !== '' && p.engines?.node !== undefined)
      .filter(([, p]) => !satisfies(lowest, p.engines!.node!))
      .map(([key, p]) => `${key.replace(/^.*node_modules\//, '')} needs node ${p.engines!.node}`);
    assert.deepEqual(refused, []);
  });

  it('every package with an install script is decided in allowScripts (no install-scripts warning)', () => {
    const allowed = pkg.allowScripts ?? {};
    const names = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript === true)
      .map(([key]) => key.replace(/^.*node_modules\//, ''))
      .filter((name) => name !== '');
    const undecided = [...new Set(names)].filter((n) => !Object.keys(allowed).some((k) => covers(k, n)));
    assert.deepEqual(undecided, []);
  });

  it('the range reader reads the forms the lockfile holds', () => {
    assert.equal(satisfies(version('20.19.0'), '^20.19.0 || ^22.13.0 || >=24'), true);
    assert.equal(satisfies(version('20.12.0'), '^20.19.0 || ^22.13.0 || >=24'), false);
    assert.equal(satisfies(version('20.12.0'), '>= 20.16.0'), false);
    assert.equal(satisfies(version('20.12.0'), '18 || 20 || >=22'), true);
    assert.equal(satisfies(version('20.12.0'), '>=22'), false);
  });
});

/** An allowScripts key (`name`, `name@1.2.3`, `@scope/name@1`) names the package `name`. */
function covers(key: string, name: string): boolean {
  const at = key.lastIndexOf('@');
  return (at > 0 ? key.slice(0, at) : key) === name;
}
