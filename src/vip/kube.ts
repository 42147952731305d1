/**
 * The ServiceEntry port of the VIP allocator and its Kubernetes adapter (@kubernetes/client-node 1.4,
 * CustomObjectsApi). The list is paged (one consistent snapshot through `continue`); an update is one PUT of
 * the object as listed with the new `spec.addresses`, carrying the observed resourceVersion (409 when the
 * ServiceEntry changed since), with field manager `Aeraki` (Aeraki's own, so the owner of `spec.addresses` stays
 * the same when this controller replaces Aeraki). Errors become SinkErrors (409 and server errors transient).
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { ISTIO_GROUP } from '../model/constants.ts';
import { kubeSinkError } from '../kit/kube/errors.ts';
import { isPlainObject } from '../util/json.ts';
import { listAllPages } from '../kit/kube/paged-list.ts';
import type { VipServiceEntry } from './plan.ts';

/** Aeraki's field manager (internal/config/constants AerakiFieldManager), used for the Update it made. */
export const VIP_FIELD_MANAGER = 'Aeraki';
const PLURAL = 'serviceentries';

/** A ServiceEntry as listed: what the planner reads, plus what an Update needs. */
export interface StoredServiceEntry extends VipServiceEntry {
  readonly resourceVersion: string;
  /** The object exactly as listed (the base of the PUT body, so no field is lost). */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** Storage of ServiceEntries. Every method rejects with a SinkError. */
export interface ServiceEntryPort {
  /** Every ServiceEntry in every namespace, with its resourceVersion. */
  list(): Promise<StoredServiceEntry[]>;
  /** Replaces `spec.addresses` of `se` (precondition: its resourceVersion is still current). */
  updateAddresses(se: StoredServiceEntry, addresses: readonly string[]): Promise<void>;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A listed item → StoredServiceEntry; undefined when it has no name or namespace. */
export function toStoredServiceEntry(item: unknown): StoredServiceEntry | undefined {
  if (!isPlainObject(item) || !isPlainObject(item['metadata'])) return undefined;
  const m = item['metadata'];
  const name = text(m['name']);
  const namespace = text(m['namespace']);
  if (!name || !namespace) return undefined;
  const spec = isPlainObject(item['spec']) ? item['spec'] : {};
  const ports = Array.isArray(spec['ports']) ? spec['ports'] : [];
  const creationTimestamp = text(m['creationTimestamp']);
  return {
    kind: 'ServiceEntry',
    metadata: { namespace, name, ...(creationTimestamp ? { creationTimestamp } : {}) },
    resolution: text(spec['resolution']),
    addresses: strings(spec['addresses']),
    portNames: ports.map((p) => (isPlainObject(p) ? (text(p['name']) ?? '') : '')),
    resourceVersion: text(m['resourceVersion']) ?? '',
    raw: item,
  };
}

/** The PUT body: the listed object with `spec.addresses` replaced and its resourceVersion as precondition. */
export function updateBody(se: StoredServiceEntry, addresses: readonly string[]): Record<string, unknown> {
  const raw = se.raw;
  const metadata = isPlainObject(raw['metadata']) ? raw['metadata'] : {};
  const spec = isPlainObject(raw['spec']) ? raw['spec'] : {};
  return {
    ...raw,
    metadata: { ...metadata, resourceVersion: se.resourceVersion },
    spec: { ...spec, addresses: [...addresses] },
  };
}

export interface KubeServiceEntryPortOptions {
  /** networking.istio.io version to list and write (default v1alpha3, served by every Istio release). */
  readonly version?: string;
  /** List page size (default 500). */
  readonly pageSize?: number;
}

export function createKubeServiceEntryPort(
  kc: KubeConfig,
  options: KubeServiceEntryPortOptions = {},
): ServiceEntryPort {
  const api = kc.makeApiClient(CustomObjectsApi);
  const version = options.version ?? 'v1alpha3';
  return {
    async list() {
      let items: unknown[];
      try {
        items = await listAllPages((next) =>
          api.listClusterCustomObject({
            group: ISTIO_GROUP,
            version,
            plural: PLURAL,
            limit: options.pageSize ?? 500,
            ...(next ? { _continue: next } : {}),
          }),
        );
      } catch (err) {
        throw kubeSinkError('list serviceentries', err);
      }
      return items.map(toStoredServiceEntry).filter((se): se is StoredServiceEntry => se !== undefined);
    },
    async updateAddresses(se, addresses) {
      const { namespace, name } = se.metadata;
      try {
        await api.replaceNamespacedCustomObject({
          group: ISTIO_GROUP,
          version,
          namespace,
          plural: PLURAL,
          name,
          body: {
            ...updateBody(se, addresses),
            apiVersion: `${ISTIO_GROUP}/${version}`,
            kind: 'ServiceEntry',
          },
          fieldManager: VIP_FIELD_MANAGER,
        });
      } catch (err) {
        throw kubeSinkError(`update ServiceEntry ${namespace}/${name}`, err);
      }
    },
  };
}
