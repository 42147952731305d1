// The differential test of MCP answers applied incrementally (issue 22): after every step of a seeded random
// sequence (answers with adds, changes, removals, re-sends, invalid versions, undecodable resources with and
// without a readable name, both type URLs of a kind, empty answers, reconnects, keys owned and released by a
// registry bridge), a store written by McpState (only what changed) holds exactly what a second store holds that
// is given a full replaceKind of the kind's union after each answer, as the client did before: objects,
// rejections, held hosts, and the same events. What McpState holds is checked against the rules
// (test/support/mcp-answers.ts). MCP_DIFF_STEPS runs longer sequences, MCP_DIFF_SEED another seed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadMcpProtos } from '../../../src/controller/mcp/protos.ts';
import { McpState, type McpStoreSink } from '../../../src/controller/mcp/state.ts';
import type { IstioKind } from '../../../src/controller/mcp/type-urls.ts';
import type { ConfigStore } from '../../../src/controller/store.ts';
import type { ConfigObject } from '../../../src/model/objects.ts';
import { compareStrings } from '../../../src/model/order.ts';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import type { ConfigEvent } from '../../../src/model/view.ts';
import { stableStringify } from '../../../src/util/json.ts';
import { recordingStore, serviceEntry } from '../../support/builders.ts';
import {
  expectHeld,
  expectUnion,
  keyOf,
  KINDS,
  NAMES,
  NS,
  URLS,
  World,
  type Held,
} from '../../support/mcp-answers.ts';
import { picker, type Picker } from '../../support/random-mesh.ts';

const STEPS = Number(process.env['MCP_DIFF_STEPS'] ?? 3000);
const SEED = Number(process.env['MCP_DIFF_SEED'] ?? 22);
const protos = loadMcpProtos();

function describeEvent(e: ConfigEvent): string {
  const object = 'object' in e ? stableStringify(e.object) : '';
  return `${e.type} ${e.kind} ${e.namespace}/${e.name} ${object}`;
}

/** Everything a store holds of the MCP kinds, as text. */
function contents(store: ConfigStore): string {
  return stableStringify({
    objects: KINDS.map((k) => store.list(k)),
    rejected: store.rejected(),
    heldHosts: store.heldHosts(),
    heldGateways: store.heldGateways(),
  });
}

/** The union McpState hands a full write, in the form of expectUnion. */
function unionText(state: McpState, kind: IstioKind): Map<string, string> {
  const { objects, rejected } = state.union(kind);
  const out = new Map<string, string>();
  for (const o of objects)
    out.set(keyOf(o.metadata.name), `ok|${o.apiVersion}|${o.metadata.resourceVersion}|${hostOf(o)}`);
  for (const r of rejected) out.set(keyOf(r.ref.name), 'invalid');
  return out;
}

function hostOf(o: ConfigObject): string {
  if (o.kind === 'ServiceEntry') return o.spec.hosts[0] ?? '';
  return o.kind === 'DestinationRule' ? o.spec.host : '';
}

/** Events as text, sorted: the order across keys may differ. */
function described(events: readonly ConfigEvent[]): string[] {
  return events.map(describeEvent).sort(compareStrings);
}

/** Counts how the store is written to. */
function counting(store: ConfigStore): McpStoreSink & { full: number; keyed: number } {
  const sink = {
    full: 0,
    keyed: 0,
    replaceKind: (...args: Parameters<ConfigStore['replaceKind']>) => {
      sink.full++;
      store.replaceKind(...args);
    },
    applyKindChanges: (...args: Parameters<ConfigStore['applyKindChanges']>) => {
      sink.keyed++;
      store.applyKindChanges(...args);
    },
    releases: (kind: string) => store.releases(kind),
  };
  return sink;
}

/** The two stores, the state writing the first, and what the rules say McpState holds per type URL. */
class Run {
  readonly world: World;
  readonly incremental = recordingStore();
  readonly reference = recordingStore();
  readonly sink = counting(this.incremental.store);
  readonly state = new McpState(protos, this.sink, parseConfigObject, '', URLS);
  readonly held = new Map<string, Held>();
  readonly seen = { answers: 0, rejected: 0, heldHosts: 0, partial: 0, undecodable: 0 };

  constructor(private readonly p: Picker) {
    this.world = new World(protos, p);
  }

  /** A registry bridge takes or gives back a ServiceEntry name, in both stores. */
  owner(what: 'own' | 'release'): void {
    const name = this.p.one(NAMES);
    for (const { store } of [this.incremental, this.reference]) {
      if (what === 'own')
        store.applyOwned('registry', [serviceEntry(NS, name, { hosts: ['reg.example'] })], []);
      else store.applyOwned('registry', [], [{ kind: 'ServiceEntry', namespace: NS, name }]);
    }
  }

  /** One answer to a random type URL: keyed writes to one store, the union's replaceKind to the other. */
  answer(empty: boolean, where: string): void {
    const type = this.p.one(URLS);
    if (empty) this.world.clear(type);
    else this.world.change(type);
    const { sent, resources } = this.world.answer(type);
    const out = this.state.applyResponse(type, resources);
    const expected = expectHeld(this.held.get(type.url) ?? new Map(), type, sent);
    this.held.set(type.url, expected);
    const { objects, rejected } = this.state.union(type.kind);
    this.reference.store.replaceKind(type.kind, objects, rejected);
    const values = [...expected.values()];
    const invalid = values.filter((v) => v === 'invalid').length;
    assert.deepEqual(
      this.state.counts(type.url),
      { valid: values.length - invalid, invalid },
      `counts: ${where}`,
    );
    this.seen.answers++;
    if (out.partial) this.seen.partial++;
    if (out.undecodable > 0) this.seen.undecodable++;
  }

  /** McpState holds what the rules say, and both stores hold the same after the same events. */
  check(where: string): void {
    for (const kind of KINDS) {
      assert.deepEqual(
        unionText(this.state, kind),
        expectUnion(this.held, kind),
        `union of ${kind}: ${where}`,
      );
    }
    const [a, b] = [this.incremental, this.reference];
    assert.equal(contents(a.store), contents(b.store), `store: ${where}`);
    assert.deepEqual(described(a.events), described(b.events), `events: ${where}`);
    a.events.length = 0;
    b.events.length = 0;
    if (a.store.rejected().length > 0) this.seen.rejected++;
    if (a.store.heldHosts().length > 0) this.seen.heldHosts++;
  }
}

describe('MCP answers applied incrementally against full replacements', () => {
  it(`give the same store after every one of ${STEPS} random steps (seed ${SEED})`, () => {
    const p = picker(SEED);
    const run = new Run(p);
    for (let step = 1; step <= STEPS; step++) {
      const what = randomStep(p);
      const where = `seed ${SEED}, step ${step} (${what})`;
      if (what === 'reconnect') run.state.resync();
      else if (what === 'own' || what === 'release') run.owner(what);
      else run.answer(what === 'empty', where);
      run.check(where);
    }
    // The sequence must exercise what it claims to, and mostly through the keyed path.
    assert.ok(run.seen.answers > STEPS / 2, `answers: ${run.seen.answers}`);
    for (const [what, n] of Object.entries(run.seen)) assert.ok(n > STEPS / 50, `${what}: only ${n} steps`);
    assert.ok(run.sink.keyed > 3 * run.sink.full, `keyed writes ${run.sink.keyed}, full ${run.sink.full}`);
  });
});

type Step = 'answer' | 'empty' | 'reconnect' | 'own' | 'release';

function randomStep(p: Picker): Step {
  const r = p.next();
  if (r < 0.8) return 'answer';
  if (r < 0.86) return 'empty';
  if (r < 0.9) return 'reconnect';
  return r < 0.95 ? 'own' : 'release';
}
