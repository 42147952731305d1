// The changes of the soak (bench/soak.ts) and what they caused, as seen from the outside: each change is handed
// to a fake (istiod or the API server) at a known time, then matched by host to the EnvoyFilter writes the API
// server answers and to the RDS responses the streams receive.
import type {
  ConfigObject,
  DestinationRule,
  IstioServiceEntry as ServiceEntry,
} from '../src/model/objects.ts';
import type { FakeKubeApiServer } from '../test/fakes/kube-apiserver/index.ts';
import type { KubeObject, RequestRecord } from '../test/fakes/kube-apiserver/types.ts';
import type { FakeIstiod } from '../test/fakes/istiod/server.ts';

/** The kinds of change, in turn: one of each every five changes. */
const KINDS = ['metarouter', 'serviceentry', 'destinationrule', 'create', 'delete'] as const;
type ChangeKind = (typeof KINDS)[number];

interface Pending {
  readonly at: number;
  readonly kind: ChangeKind;
  readonly expectWrite: boolean;
  readonly expectPush: boolean;
  /** For a creation: the name of its inbound filter (a create request names no object in its path). */
  readonly probe?: string;
  wrote: boolean;
  pushed: boolean;
}

/** Created services are deleted once older than this (two debounce maxima of the soak). */
const DELETE_AFTER_MS = 20_000;

/** How long a change waits for its write or push before it is dropped from matching. */
const MATCH_WINDOW_MS = 60_000;

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

function stats(xs: number[]): Record<string, number> {
  const s = [...xs].sort((a, b) => a - b);
  return { count: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s.at(-1) ?? NaN };
}

export interface ChangeLogDeps {
  readonly api: FakeKubeApiServer;
  readonly istiod: FakeIstiod;
  /** The mesh as first served: ServiceEntries and DestinationRules (istiod) and MetaRouters (API server). */
  readonly istio: readonly ConfigObject[];
  readonly routers: readonly KubeObject[];
  /** Changes to MetaRouters and DestinationRules go to services below this index (the ones streams watch). */
  readonly watched: number;
}

export class ChangeLog {
  private readonly entries = new Map<string, ServiceEntry>();
  private readonly rules = new Map<string, DestinationRule>();
  private readonly routers = new Map<string, KubeObject>();
  private readonly pending = new Map<string, Pending[]>();
  private readonly created: { se: ServiceEntry; at: number }[] = [];
  /** Names of the services deleted (never changed again: a change would re-create them). */
  private readonly deleted = new Set<string>();
  private readonly askedDeletions = new Set<string>();
  private readonly writeMs: number[] = [];
  /** When each change was handed to a fake, by `Kind/namespace/name`, until the controller's store applies it. */
  private readonly handed = new Map<string, number[]>();
  private readonly arrivalMs: number[] = [];
  /** The same by kind: MetaRouters come through the API server, the Istio kinds through istiod (MCP). */
  private readonly arrivalByKind = new Map<string, number[]>();
  private readonly pushMs: number[] = [];
  private readonly byKind: Record<string, number> = {};
  private readonly services: ServiceEntry[];
  private unasked: string[] = [];
  private changes = 0;
  private extra = 0;

  constructor(private readonly d: ChangeLogDeps) {
    for (const o of d.istio) {
      if (o.kind === 'ServiceEntry') this.entries.set(o.metadata.name, o);
      if (o.kind === 'DestinationRule') this.rules.set(o.metadata.name, o);
    }
    for (const r of d.routers) this.routers.set(r.metadata.name ?? '', r);
    this.services = [...this.entries.values()];
  }

  /** Makes change number k (its kind by turn, its target spread over the mesh). */
  change(k: number): void {
    const kind = KINDS[k % KINDS.length] ?? 'serviceentry';
    const i = (k * 7919) % this.services.length;
    const even = ((k * 7919) % Math.floor(this.d.watched / 2)) * 2; // has a MetaRouter and a DestinationRule
    this.changes++;
    this.byKind[kind] = (this.byKind[kind] ?? 0) + 1;
    if (kind === 'metarouter') this.changeRouter(`svc-${even}`, k);
    else if (kind === 'serviceentry') this.changeEntry(this.services[i], k);
    else if (kind === 'destinationrule') this.changeRule(`svc-${even}`, k);
    else if (kind === 'create') this.createEntry(this.services[i]);
    else this.deleteEntry();
  }

  /**
   * Notes a change of `host`. Only what a change must cause is matched: a ServiceEntry's create, change (its
   * inbound filter's selector) and delete cause writes; a MetaRouter's route rename causes a push. A
   * DestinationRule's subset labels reach neither (they still load the controller, as in a mesh).
   */
  private note(host: string, kind: ChangeKind, expectPush: boolean, probe?: string): void {
    const expectWrite = kind === 'serviceentry' || kind === 'create' || kind === 'delete';
    if (!expectWrite && !expectPush) return;
    const list = this.pending.get(host) ?? [];
    list.push({
      at: Date.now(),
      kind,
      expectWrite,
      expectPush,
      ...(probe ? { probe } : {}),
      wrote: false,
      pushed: false,
    });
    this.pending.set(host, list);
  }

  private changeRouter(name: string, k: number): void {
    const r = this.routers.get(name);
    if (!r) return;
    const spec = r['spec'] as { hosts: string[]; routes: { name: string }[] };
    const next = {
      ...r,
      spec: { ...spec, routes: spec.routes.map((x, j) => (j === 0 ? { ...x, name: `by-method-${k}` } : x)) },
    };
    this.routers.set(name, next);
    this.note(spec.hosts[0] ?? '', 'metarouter', true);
    this.handedOver('MetaRouter', r.metadata.namespace ?? '', r.metadata.name ?? '');
    this.d.api.seed(next);
  }

  private changeEntry(se: ServiceEntry | undefined, k: number): void {
    if (!se || this.deleted.has(se.metadata.name)) return;
    const next: ServiceEntry = {
      ...se,
      spec: { ...se.spec, workloadSelector: { labels: { app: `${se.metadata.name}-${k}` } } },
    };
    this.entries.set(se.metadata.name, next);
    this.note(se.spec.hosts[0] ?? '', 'serviceentry', false);
    this.handedOver('ServiceEntry', se.metadata.namespace, se.metadata.name);
    this.d.istiod.upsert(next);
  }

  private changeRule(name: string, k: number): void {
    const dr = this.rules.get(name);
    if (!dr) return;
    const subsets = (dr.spec.subsets ?? []).map((s, j) =>
      j === 0 ? { ...s, labels: { version: `v1-${k}` } } : s,
    );
    const next: DestinationRule = { ...dr, spec: { ...dr.spec, subsets } };
    this.rules.set(name, next);
    this.note(dr.spec.host, 'destinationrule', false);
    this.handedOver('DestinationRule', dr.metadata.namespace, dr.metadata.name);
    this.d.istiod.upsert(next);
  }

  /** A new service shaped like `like`, with its own name, host and addresses. */
  private createEntry(like: ServiceEntry | undefined): void {
    if (!like || this.deleted.has(like.metadata.name)) return;
    const n = this.extra++;
    const ns = like.metadata.namespace;
    const host = `extra-${n}.${ns}.svc.cluster.local`;
    const se: ServiceEntry = {
      ...like,
      metadata: { ...like.metadata, name: `extra-${n}` },
      spec: { ...like.spec, hosts: [host], addresses: [`241.0.${(n >> 8) & 255}.${n & 255}`] },
    };
    this.created.push({ se, at: Date.now() });
    this.note(host, 'create', false, `aeraki-inbound-${host}-${se.spec.ports[0]?.number ?? 0}`);
    this.handedOver('ServiceEntry', ns, se.metadata.name);
    this.d.istiod.upsert(se);
  }

  /**
   * Deletes the oldest service the soak created, once it is older than two debounce maxima (a service created and
   * deleted within one debounce never reaches the API server); else an original service nobody watches, which
   * the soak then leaves alone.
   */
  private deleteEntry(): void {
    const oldest = this.created[0];
    let se: ServiceEntry | undefined;
    if (oldest && Date.now() - oldest.at > DELETE_AFTER_MS) se = this.created.shift()?.se;
    else {
      const i = this.services.findLastIndex(
        (s, j) => j >= this.d.watched && !this.deleted.has(s.metadata.name),
      );
      se = this.services[i];
    }
    if (!se) return;
    this.deleted.add(se.metadata.name);
    const host = se.spec.hosts[0] ?? '';
    this.askedDeletions.add(host);
    this.note(host, 'delete', false);
    this.handedOver('ServiceEntry', se.metadata.namespace, se.metadata.name);
    this.d.istiod.remove('ServiceEntry', se.metadata.namespace, se.metadata.name);
  }

  /** Notes that the object `Kind/namespace/name` was handed to a fake now. */
  private handedOver(kind: string, namespace: string, name: string): void {
    const key = `${kind}/${namespace}/${name}`;
    this.handed.set(key, [...(this.handed.get(key) ?? []), Date.now()]);
  }

  /** The controller's store applied a change of `Kind/namespace/name` (its event): the change has arrived. */
  arrived(kind: string, namespace: string, name: string, at: number): void {
    const key = `${kind}/${namespace}/${name}`;
    const times = this.handed.get(key);
    if (!times) return;
    this.handed.delete(key);
    const byKind = this.arrivalByKind.get(kind) ?? [];
    this.arrivalByKind.set(kind, byKind);
    for (const t of times) {
      if (process.env['SOAK_RUNS'] && at - t > 1000)
        console.log(`soak: late arrival ${key} ${at - t} ms, at ${new Date(at).toISOString()}`);
      this.arrivalMs.push(Math.max(0, at - t));
      byKind.push(Math.max(0, at - t));
    }
  }

  private wrote(p: Pending, now: number): void {
    this.writeMs.push(now - p.at);
    if (process.env['SOAK_RUNS'] && now - p.at > 10_000) {
      const at = new Date(p.at).toISOString();
      console.log(
        `soak: slow write ${p.kind} ${now - p.at} ms, changed at ${at}, written ${new Date(now).toISOString()}`,
      );
    }
  }

  /** An API request the controller made: EnvoyFilter writes are matched to changes by host. */
  observed(r: RequestRecord): void {
    if (r.resource !== 'envoyfilters' || r.status < 200 || r.status >= 300) return;
    if (r.verb !== 'create' && r.verb !== 'update' && r.verb !== 'delete') return;
    if (r.verb === 'create' && r.name === undefined) {
      this.createObserved(r.namespace ?? '');
      return;
    }
    const name = r.name ?? '';
    const now = Date.now();
    let matched = false;
    for (const [host, list] of this.pending) {
      if (!name.includes(`-${host}-`)) continue;
      matched = true;
      for (const p of list) {
        if (!p.expectWrite || p.wrote) continue;
        p.wrote = true;
        this.wrote(p, now);
      }
      this.prune(host, list);
    }
    if (r.verb === 'delete' && ![...this.askedDeletions].some((h) => name.includes(`-${h}-`))) {
      this.unasked.push(name);
    }
    if (!matched) this.expire(now);
  }

  /** A create request (its path names no object): the creations whose inbound filter now exists are written. */
  private createObserved(namespace: string): void {
    const now = Date.now();
    for (const [host, list] of this.pending) {
      for (const p of list) {
        if (p.wrote || p.probe === undefined) continue;
        if (!this.d.api.get('envoyfilters.networking.istio.io', namespace, p.probe)) continue;
        p.wrote = true;
        this.wrote(p, now);
      }
      this.prune(host, list);
    }
  }

  /** An RDS response carrying `route` reached its stream. */
  pushed(route: string, at: number): void {
    const host = route.slice(0, route.lastIndexOf('_'));
    const list = this.pending.get(host);
    if (!list) return;
    for (const p of list) {
      if (!p.expectPush || p.pushed) continue;
      p.pushed = true;
      this.pushMs.push(at - p.at);
    }
    this.prune(host, list);
  }

  private prune(host: string, list: Pending[]): void {
    const left = list.filter((p) => (p.expectWrite && !p.wrote) || (p.expectPush && !p.pushed));
    if (left.length === 0) this.pending.delete(host);
    else this.pending.set(host, left);
  }

  private expire(now: number): void {
    for (const [host, list] of this.pending) {
      const left = list.filter((p) => now - p.at < MATCH_WINDOW_MS);
      if (left.length === 0) this.pending.delete(host);
      else this.pending.set(host, left);
    }
  }

  summary() {
    return {
      changes: this.changes,
      byKind: { ...this.byKind },
      write: stats(this.writeMs),
      push: stats(this.pushMs),
      arrival: stats(this.arrivalMs),
      arrivalByKind: Object.fromEntries(
        [...this.arrivalByKind].sort(([a], [b]) => a.localeCompare(b)).map(([k, xs]) => [k, stats(xs)]),
      ),
      unaskedDeletions: this.unasked.length,
      unaskedDeletionNames: this.unasked.slice(0, 10),
    };
  }
}
