/** The Kubernetes adapter of LeaseClient: a coordination.k8s.io/v1 Lease read and written with client-node. */
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { isNotFound } from '../kit/kube/errors.ts';
import type { LeaseClient, LeaseRecord, ObservedLease } from './leader-election.ts';

function toMs(v: unknown): number | undefined {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string' && v !== '') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

function toLease(namespace: string, name: string, r: LeaseRecord, resourceVersion?: string): V1Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: {
      holderIdentity: r.holderIdentity,
      leaseDurationSeconds: r.leaseDurationSeconds,
      leaseTransitions: r.leaseTransitions,
      ...(r.acquireTime !== undefined ? { acquireTime: new V1MicroTime(r.acquireTime) } : {}),
      ...(r.renewTime !== undefined ? { renewTime: new V1MicroTime(r.renewTime) } : {}),
    },
  };
}

export function createKubeLeaseClient(kc: KubeConfig, namespace: string, name: string): LeaseClient {
  const api = kc.makeApiClient(CoordinationV1Api);
  return {
    async get(): Promise<ObservedLease | undefined> {
      let lease: V1Lease;
      try {
        lease = await api.readNamespacedLease({ name, namespace });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
      const s = lease.spec ?? {};
      return {
        resourceVersion: lease.metadata?.resourceVersion ?? '',
        record: {
          holderIdentity: s.holderIdentity ?? '',
          leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
          acquireTime: toMs(s.acquireTime),
          renewTime: toMs(s.renewTime),
          leaseTransitions: s.leaseTransitions ?? 0,
        },
      };
    },
    async create(record) {
      await api.createNamespacedLease({ namespace, body: toLease(namespace, name, record) });
    },
    async update(record, resourceVersion) {
      await api.replaceNamespacedLease({
        name,
        namespace,
        body: toLease(namespace, name, record, resourceVersion),
      });
    },
  };
}
