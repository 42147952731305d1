// Shared types of the fake kube-apiserver (test code only).

/** One field manager's entry in metadata.managedFields (FieldsV1). */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMetaLike {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  [key: string]: unknown;
}

/** A Kubernetes object as JSON. The fake never keeps references to objects it was given or returned. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMetaLike;
  [key: string]: unknown;
}

/** A resource type served by the fake (one storage per group + plural, shared by all its versions). */
export interface ResourceType {
  /** '' for the core group. */
  group: string;
  /** Served versions, e.g. ['v1alpha3', 'v1beta1', 'v1']; discovery prefers the highest (Kubernetes order). */
  versions: string[];
  kind: string;
  /** Lower-case plural, the URL segment, e.g. 'envoyfilters'. */
  plural: string;
  singular?: string;
  namespaced: boolean;
  shortNames?: string[];
  /** Serve a `/status` subresource: main-resource writes then keep status, status writes keep the rest. */
  statusSubresource?: boolean;
  /** What DELETE answers with: a Status (core kinds) or the deleted object (custom resources). */
  deleteReturns?: 'status' | 'object';
}

/** Identifies a storage: the group and the plural. The version only chooses the apiVersion printed. */
export interface ResourceRef {
  group: string;
  resource: string;
  version?: string;
}

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const WRITE_VERBS: readonly Verb[] = ['create', 'update', 'patch', 'delete', 'deletecollection'];

/** One request as the fake saw it (after routing); `status` is the HTTP status answered (0: dropped). */
export interface RequestRecord {
  seq: number;
  method: string;
  path: string;
  query: Record<string, string>;
  verb?: Verb;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  contentType?: string;
  fieldManager?: string;
  userAgent?: string;
  /** The bearer token of the Authorization header, if any (lets a test tell replicas apart). */
  token?: string;
  status: number;
  /** Set for injected faults. */
  injected?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** An entry of the bounded event log. `object` is the state after the change (for DELETED: the last state). */
export interface StoredEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  object: KubeObject;
  /** The state before (MODIFIED/DELETED), used to filter watches with selectors. */
  previous?: KubeObject;
}
