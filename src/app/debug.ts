/**
 * The documents of the admin server's `/debug/*` endpoints. Each is built on request from the live components;
 * none of them writes anything. None shows a credential (model/secret-fields.ts): Secret values, the fields the
 * plugins declare secret in their kinds (KindSpec.secretFields) and in their output (Generator.secretKeys) are
 * `<redacted>`, and so is the text of an issue at such a field; serve-ops.ts passes every document through
 * withoutSecrets as well.
 */
import type { FileProblem } from '../controller/dir-files.ts';
import type { ConfigStore } from '../controller/store.ts';
import { diff } from '../reconcile/diff.ts';
import { generateAll, type GenerateOptions } from '../envoyfilter/generate-all.ts';
import { heldSourceKeys } from '../reconcile/reconciler.ts';
import type { EnvoyFilterSink } from '../reconcile/sink.ts';
import type { Generator } from '../model/generator.ts';
import { heldIssue, holdersOf } from '../model/held.ts';
import { formatIssue, refOf, type ConfigIssue } from '../model/result.ts';
import { redactIssue, redactSecrets, secretPolicy, type SecretPolicy } from '../model/secret-fields.ts';
import type { ListenerRejectionsDoc, ProxiesDocument } from '../tools/proxies-document.ts';
import type { AckTracker } from '../xds-rds/acks.ts';
import type { SnapshotCache } from '../xds-rds/snapshot.ts';
import type { UnservedRoute } from '../model/unserved-routes.ts';

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
 * deletions are held).
 */
export function configDocument(
  store: ConfigStore,
  synced: boolean,
  files?: { readonly partial: boolean; problems(): readonly FileProblem[] },
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
    ...(files ? { files: { partial: files.partial, errors: files.problems() } } : {}),
  };
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
  for (const s of heldSourceKeys(store.rejected())) failed.add(s);
  const plan = diff(desired.objects, existing, { failedSources: failed });
  const policy = secretPolicy(store.kinds, generators);
  return {
    desired: redactSecrets(desired.objects, policy),
    issues: desired.issues.map(formatted(policy)),
    unhandledPorts: desired.unhandledPorts.map((p) => formatIssue(p.warning)),
    failedSources: [...failed].sort(),
    diff: {
      create: plan.creates.map((o) => ref(refOf(o))),
      update: plan.updates.map((u) => ref(u.existing)),
      delete: plan.deletes.map(ref),
      kept: plan.kept.map(ref),
      unchanged: plan.unchanged,
    },
  };
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
