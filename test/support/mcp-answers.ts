// Seeded random MCP answers (state of the world) for a few names of two kinds over both type URLs of each, with
// what McpState must hold after each: resources added, changed, removed, re-sent unchanged (same bytes), invalid,
// with an undecodable body (the name readable), of another revision, with a bad name, and nameless garbage (a
// partial answer). The expected state is computed here from the rules alone (McpState's doc), not by McpState.
import { BODY_TYPE_PREFIX, MCP_RESOURCE_TYPE_URL, type McpProtos } from '../../src/controller/mcp/protos.ts';
import { typeUrlFor, type IstioKind, type McpTypeUrl } from '../../src/controller/mcp/type-urls.ts';
import { encodeResource, encodeResourceWithBody, GARBAGE, type AnyBytes } from '../fakes/istiod/encode.ts';
import type { Picker } from './random-mesh.ts';

export const NS = 'ns';
export const KINDS: readonly IstioKind[] = ['ServiceEntry', 'DestinationRule'];
/** Subscription order: per kind v1 first (its entry wins a name both hold). */
export const URLS: readonly McpTypeUrl[] = KINDS.flatMap((k) => [
  typeUrlFor(k, 'v1'),
  typeUrlFor(k, 'v1alpha3'),
]);
export const NAMES = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5'];

type Flavor = 'valid' | 'invalid' | 'badBody' | 'otherRevision' | 'badName';
const FLAVORS: readonly Flavor[] = ['valid', 'valid', 'valid', 'valid', 'invalid', 'invalid', 'badBody'];
const RARE_FLAVORS: readonly Flavor[] = ['otherRevision', 'badName'];

/** One resource as a type URL serves it; its bytes are encoded once, so a re-sent resource is byte-identical. */
export interface Instance {
  readonly name: string;
  readonly flavor: Flavor;
  readonly version: string;
  readonly host: string;
  readonly bytes: AnyBytes;
}

/** What is held for a key: `invalid`, or `ok|<apiVersion>|<version>|<host>`. */
export type Held = ReadonlyMap<string, string>;

export function keyOf(name: string): string {
  return `${NS}/${name}`;
}

/** The resources each type URL currently serves (what istiod would send on its next push of that URL). */
export class World {
  private readonly served = new Map<string, Map<string, Instance>>();
  private versions = 0;

  constructor(
    private readonly protos: McpProtos,
    private readonly p: Picker,
  ) {}

  /** Up to three random changes to what `type` serves (sometimes none: a plain re-send). */
  change(type: McpTypeUrl): void {
    const served = this.of(type);
    if (this.p.chance(0.15)) return;
    for (let i = 1 + this.p.int(3); i > 0; i--) {
      const name = this.p.one(NAMES);
      if (this.p.chance(0.3)) served.delete(name);
      else served.set(name, this.instance(type.kind, name));
    }
  }

  clear(type: McpTypeUrl): void {
    this.of(type).clear();
  }

  /**
   * The answer: every served resource, now and then shuffled, with a name twice (the same resource or another
   * version of it) or nameless garbage.
   */
  answer(type: McpTypeUrl): { sent: (Instance | 'nameless')[]; resources: AnyBytes[] } {
    // Mostly in a stable order, as istiod sends them (McpState checks the same position first).
    const served = [...this.of(type).values()];
    const sent: (Instance | 'nameless')[] = this.p.chance(0.3) ? shuffle(this.p, [...served]) : [...served];
    if (served.length > 0 && this.p.chance(0.05)) sent.push(this.p.one(served));
    if (served.length > 0 && this.p.chance(0.05)) {
      // Another version of a served name in the same answer: the later one counts.
      const other = this.instance(type.kind, this.p.one(served).name);
      sent.splice(this.p.int(sent.length + 1), 0, other);
    }
    if (this.p.chance(0.08)) sent.splice(this.p.int(sent.length + 1), 0, 'nameless');
    const resources = sent.map((s) =>
      s === 'nameless' ? { type_url: MCP_RESOURCE_TYPE_URL, value: GARBAGE } : s.bytes,
    );
    return { sent, resources };
  }

  private of(type: McpTypeUrl): Map<string, Instance> {
    let m = this.served.get(type.url);
    if (!m) this.served.set(type.url, (m = new Map()));
    return m;
  }

  private instance(kind: IstioKind, name: string): Instance {
    const flavor = this.p.chance(0.06) ? this.p.one(RARE_FLAVORS) : this.p.one(FLAVORS);
    // Versions are never reused, so a version held means the very resource held; '' as for synthetic objects.
    const version = this.p.chance(0.25) ? '' : String(++this.versions);
    const host = this.p.one(
      kind === 'ServiceEntry' ? [`${name}.example.com`, 'shared.example.com'] : [name, 'shared'],
    );
    return { name, flavor, version, host, bytes: this.encode(kind, name, flavor, version, host) };
  }

  private encode(kind: IstioKind, name: string, flavor: Flavor, version: string, host: string): AnyBytes {
    const meta = {
      namespace: flavor === 'badName' ? '' : NS,
      name,
      version,
      ...(flavor === 'otherRevision' ? { labels: { 'istio.io/rev': 'other' } } : {}),
    };
    if (flavor === 'badBody') {
      return encodeResourceWithBody(
        this.protos,
        { kind, ...meta },
        { type_url: BODY_TYPE_PREFIX + kind, value: GARBAGE },
      );
    }
    return encodeResource(this.protos, { kind, ...meta, spec: specOf(kind, flavor === 'invalid', host) });
  }
}

function specOf(kind: IstioKind, invalid: boolean, host: string): unknown {
  if (kind === 'ServiceEntry') {
    return {
      hosts: [host],
      ports: [invalid ? { number: 0, name: 'tcp-dubbo' } : { number: 80, name: 'tcp-dubbo' }],
    };
  }
  return { host, subsets: [{ name: invalid ? '' : 'v1', labels: { version: 'v1' } }] };
}

function shuffle<T>(p: Picker, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = p.int(i + 1);
    [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
  }
  return xs;
}

/** What a type URL holds after an answer, from what it held before (McpState's rules). */
export function expectHeld(previous: Held, type: McpTypeUrl, sent: readonly (Instance | 'nameless')[]): Held {
  const next = new Map<string, string>();
  let partial = false;
  for (const s of sent) {
    if (s === 'nameless') partial = true;
    else if (s.flavor === 'valid') next.set(keyOf(s.name), `ok|${type.apiVersion}|${s.version}|${s.host}`);
    else if (s.flavor === 'invalid') next.set(keyOf(s.name), 'invalid');
    else if (s.flavor === 'badBody') {
      const kept = previous.get(keyOf(s.name));
      if (kept !== undefined) next.set(keyOf(s.name), kept);
    }
  }
  if (partial) for (const [key, v] of previous) if (!next.has(key)) next.set(key, v);
  return next;
}

/** The union of a kind over its type URLs, the first URL holding a key winning. */
export function expectUnion(held: ReadonlyMap<string, Held>, kind: IstioKind): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of URLS) {
    if (t.kind !== kind) continue;
    for (const [key, v] of held.get(t.url) ?? []) if (!out.has(key)) out.set(key, v);
  }
  return out;
}
