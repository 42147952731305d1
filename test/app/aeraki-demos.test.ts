// Aeraki's own demo folders (../shared/aeraki-demos/), as a cluster holds them after the demo's install script
// (test/support/as-applied.ts), rendered by `render()`: every handled port of every Service and ServiceEntry, and
// every bound MetaProtocol gateway port, gets its filters (expectations from the input: demo-expectations.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { render } from '../../src/app/render.ts';
import { formatIssue, severityOf } from '../../src/model/result.ts';
import { asApplied, readFolder, sourceNamespace, type RawObject } from '../support/as-applied.ts';
import { describeExpected, expectedFilters, satisfies, type ExpectedFilter } from './demo-expectations.ts';

const DEMOS = resolve(import.meta.dirname, '../../../shared/aeraki-demos');

/** Filters expected per demo as applied (a change in the inputs or in what is handled must show here). */
const COUNTS: Readonly<Record<string, number>> = {
  dubbo: 1,
  'e2e-metaprotocol-gateway': 3,
  gateway: 0,
  // ZooKeeper: both Services (headless: inbound only) on tcp-zookeeper-client; Kafka: the same on tcp-kafka-client.
  kafka: 6,
  'metaprotocol-brpc': 3,
  'metaprotocol-dubbo': 2,
  'metaprotocol-dubbo-app-level': 4,
  'metaprotocol-qza': 2,
  'metaprotocol-thrift': 2,
  'metaprotocol-trpc': 2,
  'metaprotocol-videopacket': 2,
  // Redis: outbound for external-redis, redis-cluster and redis-single; inbound for the two with a selector.
  redis: 5,
  thrift: 2,
};

const folders = readdirSync(DEMOS)
  .filter((d) => statSync(join(DEMOS, d)).isDirectory())
  .sort();

const work = mkdtempSync(join(tmpdir(), 'aeraki-demos-'));

/** Renders the objects as `aeraki render -f <dir> -o json` would, from a file holding them. */
function renderObjects(name: string, objects: readonly RawObject[]) {
  const file = join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  const result = render({
    files: [file],
    output: 'json',
    routes: false,
    rootNamespace: 'istio-system',
    namespaceScope: false,
  });
  const items = (JSON.parse(result.stdout) as { items: RawObject[] }).items;
  return { items, issues: result.issues };
}

/** Objects defined more than once in the folder (the walkthrough's steps): their errors are accepted. */
function definedTwice(objects: readonly RawObject[]): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const o of objects) {
    const k = `${o.kind} ${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;
    if (seen.has(k)) twice.add(k);
    seen.add(k);
  }
  return twice;
}

describe('Aeraki demos, as applied to a cluster', () => {
  after(() => rmSync(work, { recursive: true, force: true }));

  it('every demo folder has a count', () => {
    assert.deepEqual(folders, Object.keys(COUNTS).sort());
  });

  for (const name of folders) {
    const objects = asApplied(readFolder(join(DEMOS, name)), sourceNamespace(join(DEMOS, name)));
    const expected = expectedFilters(objects);

    describe(name, () => {
      const { items, issues } = renderObjects(name, objects);
      const met = (e: ExpectedFilter) => items.some((f) => satisfies(f, e));

      it('renders every handled port', () => {
        const missing = expected.filter((e) => !met(e)).map(describeExpected);
        assert.deepEqual(missing, []);
        assert.equal(expected.length, COUNTS[name], 'filters expected per demo');
      });

      it('reports errors only for objects the input makes questionable', () => {
        const twice = definedTwice(objects);
        const unexplained = issues
          .filter((i) => severityOf(i) === 'error')
          .filter((i) => !twice.has(`${i.ref.kind} ${i.ref.namespace}/${i.ref.name}`))
          .filter((i) => !i.ref.namespace.includes('${'))
          .filter((i) => !/codec/i.test(i.message))
          .map(formatIssue);
        assert.deepEqual(unexplained, []);
      });
    });
  }
});
