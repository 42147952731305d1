// Aeraki's own demo folders (../shared/aeraki-demos/), as a cluster holds them after the demo's install script
// (test/support/as-applied.ts), rendered by `render()`: every handled port of every Service and ServiceEntry, and
// every bound MetaProtocol gateway port, gets its filters (expectations from the input: demo-expectations.ts).
// The protocols still being built are listed in PENDING_PROTOCOLS: their expectations are reported as todo and
// must not be met yet; remove a protocol from the list when its generator lands.
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

/** Protocols whose generators are being built elsewhere; their filters are expected once they land. */
const PENDING_PROTOCOLS: ReadonlySet<string> = new Set(['redis']);

/**
 * Filters per demo as applied: `met` must render today; `pending` are the expected additions of the protocols in
 * PENDING_PROTOCOLS (reported as todo, listed one by one below the table).
 */
const COUNTS: Readonly<Record<string, { met: number; pending: number }>> = {
  dubbo: { met: 1, pending: 0 },
  'e2e-metaprotocol-gateway': { met: 3, pending: 0 },
  gateway: { met: 0, pending: 0 },
  // ZooKeeper: both Services (headless: inbound only) on tcp-zookeeper-client; Kafka: the same on tcp-kafka-client.
  kafka: { met: 6, pending: 0 },
  'metaprotocol-brpc': { met: 3, pending: 0 },
  'metaprotocol-dubbo': { met: 2, pending: 0 },
  'metaprotocol-dubbo-app-level': { met: 4, pending: 0 },
  'metaprotocol-qza': { met: 2, pending: 0 },
  'metaprotocol-thrift': { met: 2, pending: 0 },
  'metaprotocol-trpc': { met: 2, pending: 0 },
  'metaprotocol-videopacket': { met: 2, pending: 0 },
  // Redis: outbound for external-redis, redis-cluster and redis-single; inbound for the two with a selector.
  redis: { met: 0, pending: 5 },
  thrift: { met: 2, pending: 0 },
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
    const pending = expected.filter((e) => PENDING_PROTOCOLS.has(e.protocol));
    const current = expected.filter((e) => !PENDING_PROTOCOLS.has(e.protocol));

    describe(name, () => {
      const { items, issues } = renderObjects(name, objects);
      const met = (e: ExpectedFilter) => items.some((f) => satisfies(f, e));

      it('renders every handled port of the protocols built today', () => {
        const missing = current.filter((e) => !met(e)).map(describeExpected);
        assert.deepEqual(missing, []);
        assert.deepEqual(
          { met: current.length, pending: pending.length },
          COUNTS[name],
          'filters expected per demo (met today, pending)',
        );
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

      it('renders nothing yet for the pending protocols (remove one from PENDING_PROTOCOLS when it does)', () => {
        assert.deepEqual(pending.filter(met).map(describeExpected), []);
      });

      for (const e of pending) it.todo(`${describeExpected(e)} (${e.protocol} generator being built)`);
    });
  }
});
