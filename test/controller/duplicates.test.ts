// An object defined more than once in the files read: the last definition wins (as before), now with one warning
// naming every place (`file:line` of its `kind:`) and the one that wins; twice in one file counts too; a namespaced
// object written without a namespace is the one in `default`; kinds not read (a Deployment) are left alone.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { readRawObjects } from '../../src/controller/file-source.ts';
import { issueLine, type ConfigIssue } from '../../src/model/result.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-duplicates-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

const rule = (subset: string, ns = '  namespace: shop\n') => `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata:
  name: orders
${ns}spec:
  host: orders.shop.svc.cluster.local
  subsets: [{name: ${subset}, labels: {version: ${subset}}}]
`;

function read(files: string[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  readRawObjects(files, issues);
  return issues;
}

describe('objects defined more than once', () => {
  it('one warning naming each place and the one that wins (the last read)', () => {
    const a = file('a.yaml', rule('v1'));
    const b = file('b.yaml', `# two in one file\n${rule('v2')}---\n${rule('v3')}`);
    assert.deepEqual(read([a, b]).map(issueLine), [
      `warning: DestinationRule shop/orders: defined 3 times (${a}:2, ${b}:3, ${b}:12): ${b}:12 wins, the last read (files in path order, documents in file order)`,
    ]);
  });

  it('no namespace is the default one; other namespaces and kinds not read say nothing', () => {
    const a = file('c.yaml', rule('v1', ''));
    const b = file('d.yaml', rule('v2', '  namespace: default\n'));
    const other = file('e.yaml', rule('v3', '  namespace: elsewhere\n'));
    const deployment = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {}\n';
    const base = file('f.yaml', deployment);
    const overlay = file('g.yaml', deployment);
    const issues = read([a, b, other, base, overlay]);
    assert.equal(issues.length, 1, issues.map(issueLine).join('\n'));
    assert.match(issueLine(issues[0]!), /^warning: DestinationRule default\/orders: defined 2 times/);
  });
});
