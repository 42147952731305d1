/**
 * The Gateway controller's port to the Kubernetes API and its adapter (@kubernetes/client-node 1.4). Every call
 * here is one RBAC grant of manifests/waypoint (test/security/rbac-waypoint.test.ts compares them):
 * - owned objects: server-side apply (`patch`, field manager `aeraki`, force: the controller owns these objects)
 *   of serviceaccounts, services, secrets (core) and deployments (apps), in the Gateway's namespace;
 * - a waypoint's Secret: `get` by name (its held certificate, read once per leadership);
 * - the CA Secret: `create` in the controller's namespace (once; ca.ts);
 * - `patch` of gateways/status and gatewayclasses/status (merge patch of the status subresource);
 * - `create` of events.k8s.io/v1 Events on Gateways.
 * Errors become SinkErrors (kit/kube/errors.ts): conflicts, throttling, server and network errors are transient.
 */
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { isConflict, isNotFound, kubeSinkError } from '../kit/kube/errors.ts';
import { FIELD_MANAGER } from '../model/constants.ts';
import { OWN_WAYPOINT_CONTROLLER } from '../model/ambient/own-waypoint.ts';
import { sha256Hex } from '../util/json.ts';
import { GATEWAY_API, GATEWAY_CLASSES, GATEWAYS } from './gateway-objects.ts';
import type { OwnedBody } from './owned-objects.ts';
import type { GatewayEvent, GatewayStatusBody } from './status.ts';

/** A Secret as the controller reads it. */
export interface SecretData {
  readonly data?: Readonly<Record<string, string>>;
}

/** What the controller does through the API. Every method rejects with a SinkError. */
export interface WaypointKubePort {
  /** Server-side apply; resolves with the object the API server answered. */
  apply(body: OwnedBody): Promise<Record<string, unknown>>;
  /** The Secret, or undefined when it does not exist. */
  getSecret(namespace: string, name: string): Promise<SecretData | undefined>;
  /** Creates a Secret; a SinkError with code 409 when one of that name exists. */
  createSecret(namespace: string, body: Record<string, unknown>): Promise<SecretData>;
  patchGatewayStatus(namespace: string, name: string, status: GatewayStatusBody): Promise<void>;
  patchClassStatus(name: string, status: GatewayStatusBody): Promise<void>;
  /** Creates the Event; one created before (same name) counts as created. */
  createEvent(event: GatewayEvent, time: Date): Promise<void>;
}

/** A stable Event name: the Gateway's name and a hash of what it says (a re-create after a restart finds it). */
export function gatewayEventName(e: GatewayEvent): string {
  return `${e.name.slice(0, 200)}.${sha256Hex(e.key).slice(0, 16)}`;
}

export function gatewayEventBody(e: GatewayEvent, instance: string, time: Date): Record<string, unknown> {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: gatewayEventName(e), namespace: e.namespace },
    eventTime: time.toISOString().replace('Z', '000Z'),
    reportingController: OWN_WAYPOINT_CONTROLLER,
    reportingInstance: instance,
    action: e.action,
    reason: e.reason,
    type: e.type,
    note: e.note.length > 1024 ? `${e.note.slice(0, 1021)}...` : e.note,
    regarding: { apiVersion: GATEWAY_API, kind: 'Gateway', namespace: e.namespace, name: e.name, uid: e.uid },
  };
}

export function createWaypointKubePort(kc: KubeConfig, o: { readonly instance: string }): WaypointKubePort {
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const ssa = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const applyOf = (b: OwnedBody): Promise<unknown> => {
    const p = {
      name: b.metadata.name,
      namespace: b.metadata.namespace,
      body: b,
      fieldManager: FIELD_MANAGER,
      force: true,
    };
    switch (b.kind) {
      case 'ServiceAccount':
        return core.patchNamespacedServiceAccount(p, ssa);
      case 'Service':
        return core.patchNamespacedService(p, ssa);
      case 'Secret':
        return core.patchNamespacedSecret(p, ssa);
      case 'Deployment':
        return apps.patchNamespacedDeployment(p, ssa);
    }
  };
  return {
    async apply(b) {
      try {
        return (await applyOf(b)) as Record<string, unknown>;
      } catch (err) {
        throw kubeSinkError(`apply ${b.kind} ${b.metadata.namespace}/${b.metadata.name}`, err);
      }
    },
    async getSecret(namespace, name) {
      try {
        return await core.readNamespacedSecret({ namespace, name });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw kubeSinkError(`get Secret ${namespace}/${name}`, err);
      }
    },
    async createSecret(namespace, body) {
      try {
        return await core.createNamespacedSecret({ namespace, body, fieldManager: FIELD_MANAGER });
      } catch (err) {
        throw kubeSinkError(`create Secret ${namespace}`, err);
      }
    },
    async patchGatewayStatus(namespace, name, status) {
      try {
        await custom.patchNamespacedCustomObjectStatus(
          { ...GATEWAYS, namespace, name, body: { status }, fieldManager: FIELD_MANAGER },
          merge,
        );
      } catch (err) {
        throw kubeSinkError(`patch status of Gateway ${namespace}/${name}`, err);
      }
    },
    async patchClassStatus(name, status) {
      try {
        await custom.patchClusterCustomObjectStatus(
          { ...GATEWAY_CLASSES, name, body: { status }, fieldManager: FIELD_MANAGER },
          merge,
        );
      } catch (err) {
        throw kubeSinkError(`patch status of GatewayClass ${name}`, err);
      }
    },
    async createEvent(e, time) {
      try {
        await custom.createNamespacedCustomObject({
          group: 'events.k8s.io',
          version: 'v1',
          namespace: e.namespace,
          plural: 'events',
          body: gatewayEventBody(e, o.instance, time),
          fieldManager: FIELD_MANAGER,
        });
      } catch (err) {
        if (isConflict(err)) return;
        throw kubeSinkError(`create Event ${e.reason} on Gateway ${e.namespace}/${e.name}`, err);
      }
    },
  };
}
