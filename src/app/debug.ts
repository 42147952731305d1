/**
 * The documents of the admin server's `/debug/*` endpoints. Each is built on request from the live components;
 * none of them writes anything. None shows a credential (model/secret-fields.ts): Secret values, the fields the
 * plugins declare secret in their kinds (KindSpec.secretFields) and in their output (Generator.secretKeys) are
 * `<redacted>`, and so is the text of an issue at such a field; serve-ops.ts passes every document through
 * withoutSecrets as well.
 */
import type { FileProblem } from '../controller/dir-files.ts';
import type { ChangeTimes } from '../controller/change-times.ts';
import type { ConfigStore } from '../controller/store.ts';
import { diff } from '../reconcile/diff.ts';
import { generateAll, type GenerateOptions } from '../envoyfilter/generate-all.ts';
import { heldSourceKeys } from '../reconcile/reconciler.ts';
import type { EnvoyFilterSink } from '../reconcile/sink.ts';
import type { Generator } from '../model/generator.ts';
import { heldIssue, holdersOf } from '../model/held.ts';
import { formatIssue, refOf, refString, severityOf, type ConfigIssue } from '../model/result.ts';
import { redactIssue, redactSecrets, secretPolicy, type SecretPolicy } from '../model/secret-fields.ts';
import type { ListenerRejectionsDoc, ProxiesDocument } from '../tools/proxies-document.ts';
import type { AckTracker } from '../xds-rds/acks.ts';
import type { SnapshotCache } from '../xds-rds/snapshot.ts';
import type { UnservedRoute } from '../model/unserved-routes.ts';
import type { DescribedObject } from '../model/settings.ts';
import type { ExistingObject } from '../reconcile/diff.ts';
import { SOURCE_ANNOTATION } from '../model/constants.ts';

/**
 * The debug providers with every document redacted by `policy` (the plugins' kinds and generators): whatever a
 * document holds (objects with a `kind`, generated config), no declared secret field reaches a response.
 */
export function withoutSecrets<P extends Record<string, (() => unknown) | undefined>>(
  providers: P,
  policy: SecretPolicy,
): P {
  const out: Record<string, () => unknown> = {};
  for (const [name, provider] of Object.entries(providers)) {
    if (!provider) continue;
    out[name] = () => {
      const doc = provider();
      return doc instanceof Promise
        ? doc.then((d: unknown) => redactSecrets(d, policy))
        : redactSecrets(doc, policy);
    };
  }
  return out as P;
}

const formatted = (policy: SecretPolicy) => (i: ConfigIssue) => formatIssue(redactIssue(i, policy));

/**
 * `/debug/config`: every object of the store by kind (Secrets with their values redacted), the mesh config and
 * the rejected objects, and the held hosts and Gateways (with the rejected objects holding them, each for the
 * ServiceEntries and Gateways of its own namespace only: their EnvoyFilters are kept and their RDS routes withheld;
 * an invalid MetaRouter holds no host), the `held:` warning of each ServiceEntry and Gateway held
 * (model/held.ts), as `render` prints it; with the directory source, the files that cannot be used
 * (`files.errors`: path, message, line, column, lastGood) and `files.partial` (a file never read well:
 * deletions are held); `changedAt`: per object (`<Kind>/<ns>/<name>`), the ISO time the controller saw its stored
 * version change last; `settings`: what each object of a plugin's kind sets, described by its plugin
 * (KindSpec.describe, model/settings.ts), with the services it applies to.
 */
export function configDocument(
  store: ConfigStore,
  synced: boolean,
  files?: { readonly partial: boolean; problems(): readonly FileProblem[] },
  times?: ChangeTimes,
): unknown {
  const policy = secretPolicy(store.kinds);
  const objects: Record<string, unknown> = {};
  for (const kind of store.configKinds) objects[kind] = store.list(kind);
  return {
    synced,
    rootNamespace: store.rootNamespace,
    mesh: store.mesh(),
    objects: redactSecrets(objects, policy),
    rejected: store.rejected().map((r) => ({ ref: r.ref, issues: r.issues.map(formatted(policy)) })),
    held: store.heldHosts(),
    heldGateways: store.heldGateways(),
    heldObjects: heldObjects(store),
    changedAt: changedTimes(store, times),
    settings: describedObjects(store, times),
    ...(files ? { files: { partial: files.partial, errors: files.problems() } } : {}),
  };
}

const iso = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : new Date(ms).toISOString();

/** `<Kind>/<ns>/<name>` → ISO time of the last change the store saw, for every stored object with one. */
function changedTimes(store: ConfigStore, times: ChangeTimes | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!times) return out;
  for (const kind of store.configKinds) {
    for (const o of store.list(kind)) {
      const at = iso(times.at(kind, o.metadata.namespace, o.metadata.name));
      if (at !== undefined) out[`${kind}/${o.metadata.namespace}/${o.metadata.name}`] = at;
    }
  }
  return out;
}

/** The stored objects of every kind whose plugin describes them, by kind (plugin order), namespace, name. */
function describedObjects(store: ConfigStore, times: ChangeTimes | undefined): DescribedObject[] {
  const ctx = { rootNamespace: store.rootNamespace };
  return store.kinds.flatMap((k) => {
    const describe = k.describe?.bind(k);
    if (!describe) return [];
    return store.list(k.kind).map((o) => {
      const { namespace, name } = o.metadata;
      const changedAt = iso(times?.at(k.kind, namespace, name));
      return {
        ref: { kind: k.kind, namespace, name },
        ...describe(o, ctx),
        ...(changedAt !== undefined ? { changedAt } : {}),
      };
    });
  });
}

/** The source keys (`<Kind>/<ns>/<name>`) of the ServiceEntries and Gateways held by invalid objects. */
function heldSources(store: ConfigStore): string[] {
  if (store.rejected().length === 0) return [];
  return [...store.serviceEntries(), ...store.gateways()]
    .filter((source) => holdersOf(store, source).length > 0)
    .map((source) => `${source.kind}/${source.metadata.namespace}/${source.metadata.name}`);
}

/** The `held:` warning of each held ServiceEntry and Gateway (none when nothing is rejected). */
function heldObjects(store: ConfigStore): string[] {
  if (store.rejected().length === 0) return [];
  const sources = [...store.serviceEntries(), ...store.gateways()];
  return sources.flatMap((source) => {
    const holders = holdersOf(store, source);
    return holders.length > 0 ? [formatIssue(heldIssue(source, holders))] : [];
  });
}

const ref = (o: { kind: string; namespace: string; name: string }) => `${o.kind}/${o.namespace}/${o.name}`;

/**
 * `/debug/envoyfilters`: the desired set now (credentials redacted: they reach the API server, not this page),
 * and what the next reconcile would do against the sink.
 */
export async function envoyFiltersDocument(
  store: ConfigStore,
  generators: readonly Generator[],
  options: GenerateOptions,
  sink: EnvoyFilterSink,
): Promise<unknown> {
  const desired = generateAll(store, generators, options);
  const existing = await sink.list();
  const failed = new Set(desired.failedSources);
  const held = new Set([...heldSourceKeys(store.rejected()), ...heldSources(store)]);
  for (const s of held) failed.add(s);
  const plan = diff(desired.objects, existing, { failedSources: failed });
  const policy = secretPolicy(store.kinds, generators);
  return {
    desired: redactSecrets(desired.objects, policy),
    issues: desired.issues.map(formatted(policy)),
    issueList: desired.issues.map((i) => {
      const text = formatted(policy)(i);
      const object = refString(i.ref);
      return { severity: severityOf(i), object, text: text.slice(object.length + 2) };
    }),
    unhandledPorts: desired.unhandledPorts.map((p) => formatIssue(p.warning)),
    failedSources: [...failed].sort(),
    diff: {
      create: plan.creates.map((o) => ref(refOf(o))),
      update: plan.updates.map((u) => ref(u.existing)),
      delete: plan.deletes.map(ref),
      kept: plan.kept.map(ref),
      unchanged: plan.unchanged,
    },
    keptFilters: plan.kept.map((e) => keptFilter(e, held, failed)),
  };
}

/**
 * A managed EnvoyFilter left in place though not desired now, and why: `held` (its source is held by an invalid
 * object), `failed` (its source's generation failed) or `unknown` (deletions are held: a source is not fully
 * known, e.g. a config file never read well).
 */
function keptFilter(e: ExistingObject, held: ReadonlySet<string>, failed: ReadonlySet<string>) {
  const source = e.annotations[SOURCE_ANNOTATION] ?? '';
  const why = held.has(source) ? 'held' : failed.has(source) ? 'failed' : 'unknown';
  return { namespace: e.namespace, name: e.name, source, why };
}

/**
 * `/debug/routes`: the RDS snapshot being served, and `unservedRoutes`: the managed EnvoyFilters naming a route it
 * does not hold (model/unserved-routes.ts).
 */
export function routesDocument(cache: SnapshotCache, unserved: readonly UnservedRoute[] = []): unknown {
  const snapshot = cache.snapshot();
  return {
    version: snapshot.version,
    routes: [...snapshot.resources.values()].map((r) => ({
      name: r.name,
      version: r.version,
      config: r.json,
    })),
    unservedRoutes: unserved,
  };
}

/**
 * `/debug/proxies` (tools/proxies-document.ts): every connected RDS proxy (node id, peer identity, namespace,
 * connected since) with, per route, the version sent, acknowledged and rejected (and the error detail); per route
 * configuration the object it is built from and the subscribed, acknowledged, pending and rejecting proxies; and,
 * with proxy status on, the listener rejections istiod reported, per source object and per proxy.
 */
export function proxiesDocument(
  acks: AckTracker,
  more: {
    readonly routeOrigin?: (route: string) => string | undefined;
    readonly listenerRejections?: () => ListenerRejectionsDoc;
  } = {},
): ProxiesDocument {
  const origin = more.routeOrigin;
  return {
    proxies: acks.proxies(),
    routes: acks.summaries().map(({ name, ...counts }) => {
      const source = origin?.(name);
      return { name, ...(source !== undefined ? { source } : {}), ...counts };
    }),
    routeConfigsRejected: acks.routeConfigsRejected,
    proxiesRejecting: acks.proxiesRejecting,
    ...(more.listenerRejections ? { listenerRejections: more.listenerRejections() } : {}),
  };
}
