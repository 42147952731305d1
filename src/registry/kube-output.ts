/**
 * `--registry-output kube`: the leader writes the registry ServiceEntries to the API server through the same
 * diff (kit/diff.ts, compared by owned content as the EnvoyFilters are) and apply (kit/apply.ts) as every writer.
 *
 * Every run lists the ServiceEntries labelled `manager=Aeraki` whose `registry` label names a configured registry
 * (ServiceEntries of registries no longer configured are left alone), plans against the bridges' current entries
 * and writes only the difference, so an unchanged state writes nothing. A ServiceEntry no longer desired is deleted
 * only while its bridge allows deletions (bridge.ts: connected and synced in the current session). Runs are
 * debounced, serialised, retried with backoff on transient failures (kit/controller-loop.ts); it is a leader part
 * (started on election, stopped on loss: kit/runtime.ts) and checks `mayWrite()` (not stopped) before every write.
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { FIELD_MANAGER, ISTIO_GROUP, MANAGER_LABEL, MANAGER_VALUE } from '../model/constants.ts';
import {
  asSinkError,
  NO_WRITES,
  writeRunHandlers,
  type ApplyWrites,
  type SinkError,
  type WriteCounts,
} from '../kit/write.ts';
import { diffObjects, sortByKey } from '../kit/diff.ts';
import { planOps } from '../kit/apply.ts';
import {
  desiredObjectKey,
  existingObjectKey,
  ownedContentChanged,
  type ExistingObject,
} from '../kit/owned-content.ts';
import { toExisting, updateBody } from '../kit/kube/bodies.ts';
import type { RegistryBridge } from './bridge.ts';
import { REGISTRY_LABEL } from './convert.ts';
import type { RegistryServiceEntry } from './types.ts';
import type { RegistryVips } from './vips.ts';
import { LoopController, loopSettings, type LoopControllerSettings } from '../kit/controller-loop.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import { listAllPages } from '../kit/kube/paged-list.ts';
import { isNotFound, kubeSinkError } from '../kit/kube/errors.ts';

/** A registry ServiceEntry as listed: with its spec, whose addresses the VIP seeding reads (seedVipsFromKube). */
export type ExistingServiceEntry = ExistingObject<'ServiceEntry'> & { readonly spec: unknown };

/** Storage of registry ServiceEntries. Every method rejects with a SinkError. */
export interface RegistryServiceEntryPort {
  /** Every ServiceEntry labelled `manager=Aeraki` and `registry=<one of registries>`, in every namespace. */
  list(registries: readonly string[]): Promise<ExistingServiceEntry[]>;
  create(se: RegistryServiceEntry): Promise<void>;
  /** Replaces the owned fields of `existing` (its resourceVersion is the precondition). */
  update(se: RegistryServiceEntry, existing: ExistingServiceEntry): Promise<void>;
  /** Deleting one that is already gone succeeds. */
  delete(existing: ExistingServiceEntry): Promise<void>;
}

/** The Kubernetes adapter: networking.istio.io `version` (v1 or v1alpha3), field manager `aeraki`. */
export function createKubeRegistryPort(kc: KubeConfig, version: string): RegistryServiceEntryPort {
  const api = kc.makeApiClient(CustomObjectsApi);
  const ref = (namespace: string) => ({ group: ISTIO_GROUP, version, namespace, plural: 'serviceentries' });
  const body = (se: RegistryServiceEntry) => ({ ...se, apiVersion: `${ISTIO_GROUP}/${version}` });
  const call = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (err) {
      if (what.startsWith('delete') && isNotFound(err)) return;
      throw kubeSinkError(what, err);
    }
  };
  return {
    async list(registries) {
      let items: unknown[];
      try {
        items = await listAllPages((next) =>
          api.listClusterCustomObject({
            group: ISTIO_GROUP,
            version,
            plural: 'serviceentries',
            labelSelector: `${MANAGER_LABEL}=${MANAGER_VALUE},${REGISTRY_LABEL} in (${registries.join(',')})`,
            limit: 500,
            ...(next ? { _continue: next } : {}),
          }),
        );
      } catch (err) {
        throw kubeSinkError('list serviceentries', err);
      }
      const out: ExistingServiceEntry[] = [];
      for (const i of items) {
        const e = toExisting('ServiceEntry', i);
        if (e) out.push({ ...e, spec: (i as { spec?: unknown }).spec ?? {} });
      }
      return out;
    },
    create: (se) =>
      call(`create ServiceEntry ${se.metadata.namespace}/${se.metadata.name}`, () =>
        api.createNamespacedCustomObject({
          ...ref(se.metadata.namespace),
          body: body(se),
          fieldManager: FIELD_MANAGER,
        }),
      ),
    update: (se, existing) =>
      call(`update ServiceEntry ${se.metadata.namespace}/${se.metadata.name}`, () =>
        api.replaceNamespacedCustomObject({
          ...ref(se.metadata.namespace),
          name: se.metadata.name,
          body: { ...updateBody(se, existing), apiVersion: `${ISTIO_GROUP}/${version}` },
          fieldManager: FIELD_MANAGER,
        }),
      ),
    delete: (e) =>
      call(`delete ServiceEntry ${e.namespace}/${e.name}`, () =>
        api.deleteNamespacedCustomObject({
          ...ref(e.namespace),
          name: e.name,
          body: e.resourceVersion ? { preconditions: { resourceVersion: e.resourceVersion } } : {},
        }),
      ),
  };
}

/** What one run did. */
/** `kept`: not desired, but kept because their registry may not delete now. */
export interface RegistryWriteReport extends WriteCounts {
  readonly skipped?: 'not-synced';
  readonly listError?: SinkError;
}

const EMPTY: RegistryWriteReport = NO_WRITES;

/** Debounce defaults: 500 ms quiet, 5 s at most; `isSynced` waits e.g. until the namespaces are known. */
export interface RegistryKubeOutputOptions extends LoopControllerSettings<RegistryWriteReport> {
  readonly port: RegistryServiceEntryPort;
  readonly apply: ApplyWrites;
  readonly bridges: readonly RegistryBridge[];
}

export class RegistryKubeOutput extends LoopController<RegistryWriteReport> {
  private readonly o: RegistryKubeOutputOptions;

  constructor(options: RegistryKubeOutputOptions) {
    super({
      ...writeRunHandlers(EMPTY, 'registry serviceentries run'),
      ...loopSettings(options, { quietMs: 500, maxWaitMs: 5000, component: 'registry-output' }),
    });
    this.o = options;
    this.loop.onRun((r) => {
      if (r.listError) this.log.warn('listing registry ServiceEntries failed', errorFields(r.listError));
    });
    if (options.onRun) this.loop.onRun(options.onRun);
  }

  protected async runOnce(): Promise<RegistryWriteReport> {
    const bridges = new Map(this.o.bridges.map((b) => [b.name, b]));
    let existing: ExistingServiceEntry[];
    try {
      existing = await this.o.port.list([...bridges.keys()]);
    } catch (err) {
      return { ...EMPTY, listError: asSinkError('list serviceentries', err) };
    }
    const desired = this.o.bridges.flatMap((b) => b.entries());
    // Deleted only while the registry of the ServiceEntry may delete (positive absence); else kept.
    const plan = diffObjects<RegistryServiceEntry, ExistingServiceEntry>(desired, existing, {
      desiredKey: desiredObjectKey,
      existingKey: existingObjectKey,
      changed: ownedContentChanged(),
      mayDelete: (e) => bridges.get(e.labels[REGISTRY_LABEL] ?? '')?.mayDelete() ?? false,
    });
    const port = this.o.port;
    const at = (namespace: string, name: string) => ({ kind: 'ServiceEntry', namespace, name });
    const byKey = (namespace: string, name: string) => ['ServiceEntry', namespace, name];
    const ops = planOps(
      {
        creates: sortByKey(plan.creates, (se) => byKey(se.metadata.namespace, se.metadata.name)),
        updates: sortByKey(plan.updates, (u) => byKey(u.desired.metadata.namespace, u.desired.metadata.name)),
        deletes: sortByKey(plan.deletes, (e) => byKey(e.namespace, e.name)),
      },
      {
        create: (se) => port.create(se),
        update: (u) => port.update(u.desired, u.existing),
        delete: (e) => port.delete(e),
      },
      {
        desired: (se) => at(se.metadata.namespace, se.metadata.name),
        existing: (e) => at(e.namespace, e.name),
      },
    );
    const result = await this.o.apply(ops, {
      concurrency: 4,
      mayWrite: () => this.loop.mayWrite(),
      onWrite: (op, error) => {
        const fields = { namespace: op.namespace, name: op.name, op: op.op };
        if (error) this.log.warn('registry ServiceEntry write failed', { ...fields, ...errorFields(error) });
        else this.log.info('registry ServiceEntry written', fields);
      },
    });
    return {
      created: result.created,
      updated: result.updated,
      deleted: result.deleted,
      unchanged: plan.unchanged,
      kept: plan.kept.length,
      failures: result.failures,
      interrupted: result.interrupted,
    };
  }
}

/**
 * Pins the VIPs already written on the registry ServiceEntries (`spec.addresses[0]` of each host), so they stay
 * what they were even if the derivation would now choose otherwise. A failed list is logged and ignored: the
 * derived VIPs are the same ones in all but collision cases.
 */
export async function seedVipsFromKube(
  port: RegistryServiceEntryPort,
  registries: readonly string[],
  vips: RegistryVips,
  logger: Logger,
): Promise<void> {
  try {
    for (const e of await port.list(registries)) {
      const spec = e.spec as { hosts?: unknown; addresses?: unknown };
      const first = (v: unknown): unknown => (Array.isArray(v) ? (v as unknown[])[0] : undefined);
      const host = first(spec.hosts);
      const vip = first(spec.addresses);
      if (typeof host === 'string' && typeof vip === 'string') vips.seed(host, vip);
    }
  } catch (err) {
    logger.warn('cannot read back registry ServiceEntry VIPs; deriving them', errorFields(err));
  }
}
