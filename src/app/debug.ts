/**
 * The documents of the admin server's `/debug/*` endpoints. Each is built on request from the live components;
 * none of them writes anything.
 */
import type { FileProblem } from '../controller/dir-files.ts';
import type { ConfigStore } from '../controller/store.ts';
import { diff } from '../reconcile/diff.ts';
import { generateAll } from '../envoyfilter/generate-all.ts';
import { heldSourceKeys } from '../reconcile/reconciler.ts';
import type { EnvoyFilterSink } from '../reconcile/sink.ts';
import type { Generator } from '../model/generator.ts';
import type { Secret } from '../model/objects.ts';
import { heldIssue, holdersOf } from '../model/held.ts';
import { formatIssue, refOf } from '../model/result.ts';
import type { ListenerRejectionsDoc, ProxiesDocument } from '../tools/proxies-document.ts';
import type { AckTracker } from '../xds-rds/acks.ts';
import type { SnapshotCache } from '../xds-rds/snapshot.ts';
import type { UnservedRoute } from '../model/unserved-routes.ts';

/** A Secret as /debug/config shows it: its name and the keys kept (secrets.ts), never their values. */
function redacted(secret: Secret): unknown {
  const data = Object.fromEntries(Object.keys(secret.spec.data).map((k) => [k, '<redacted>']));
  return { ...secret, spec: { data } };
}

/** Redis credentials inside filter configs (authPassword, downstreamAuthPasswords, ...): written, never shown. */
const CREDENTIAL_KEY = /^(downstream)?auth(password|username)s?$/i;

/** `value` with every credential field's value replaced by `<redacted>` (a copy; `value` is not changed). */
export function withoutCredentials(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCredentials);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, CREDENTIAL_KEY.test(k) ? '<redacted>' : withoutCredentials(v)]),
  );
}

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
  const objects: Record<string, unknown> = {};
  for (const kind of store.configKinds) objects[kind] = store.list(kind);
  objects['Secret'] = store.list('Secret').map(redacted);
  return {
    synced,
    rootNamespace: store.rootNamespace,
    mesh: store.mesh(),
    objects,
    rejected: store.rejected().map((r) => ({ ref: r.ref, issues: r.issues.map(formatIssue) })),
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
 * `/debug/envoyfilters`: the desired set now (Redis credentials redacted: they reach the API server, not this page),
 * and what the next reconcile would do against the sink.
 */
export async function envoyFiltersDocument(
  store: ConfigStore,
  generators: readonly Generator[],
  options: { namespaceScope: boolean },
  sink: EnvoyFilterSink,
): Promise<unknown> {
  const desired = generateAll(store, generators, options);
  const existing = await sink.list();
  const failed = new Set(desired.failedSources);
  for (const s of heldSourceKeys(store.rejected())) failed.add(s);
  const plan = diff(desired.objects, existing, { failedSources: failed });
  return {
    desired: withoutCredentials(desired.objects),
    issues: desired.issues.map(formatIssue),
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
