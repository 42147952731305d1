/**
 * Ambient inputs from the Kubernetes API (KubeSource `ambient`): the Namespaces (name and labels: the binding
 * labels, model/ambient/binding.ts) and, where istiod does not serve them over MCP, the Gateway API Gateways and
 * GatewayClasses (`gateway.networking.k8s.io/v1`, istio/istio pkg/config/schema/gvk/resources.gen.go @86c9f01f
 * KubernetesGateway and GatewayClass). Each object is reduced before the shared informer caches it to the fields
 * read (model/parse/ambient.ts) and the store holds only its projection (store-ambient.ts).
 *
 * A cluster without the Gateway API CRDs is a cluster without waypoints: a resource not served is "not installed",
 * read as empty and synced (kit/kube/kind-informer.ts), and picked up when the CRDs are installed later.
 * RBAC: namespaces `list, watch` (manifests/rbac.yaml, granted already), gateways and gatewayclasses `list, watch`
 * (manifests/ambient).
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import {
  clusterCustomObjectsWatch,
  nameAndLabels,
  namespacesWatch,
  type WatchSpec,
} from '../../kit/kube/informer-hub.ts';
import { OWN_WAYPOINT_IMAGE_ANNOTATION } from '../../model/ambient/own-waypoint.ts';
import {
  PROXY_IMAGE_ANNOTATION,
  WAYPOINT_FOR_LABEL,
  WAYPOINT_INBOUND_BINDING_ANNOTATION,
} from '../../model/ambient/labels.ts';
import { parseAmbientObject, type AmbientKind } from '../../model/parse/ambient.ts';
import { formatIssue } from '../../model/result.ts';
import { isPlainObject } from '../../util/json.ts';
import type { Logger } from '../../util/logger.ts';
import type { AmbientTarget } from '../store-ambient.ts';

export interface KubeAmbientOptions {
  /** Where the objects go: the ConfigStore. */
  readonly target: AmbientTarget;
  /** Read Gateways and GatewayClasses too (false with MCP, which serves them). */
  readonly gateways: boolean;
}

/** What one informer of an ambient kind needs. */
export interface AmbientReads {
  readonly spec: WatchSpec;
  readonly reduce: (obj: KubernetesObject) => KubernetesObject;
  readonly handlers: { upsert(o: KubernetesObject): void; delete(o: KubernetesObject): void };
}

export const GATEWAY_API_GROUP_VERSION = { group: 'gateway.networking.k8s.io', version: 'v1' } as const;
export const GATEWAY_RESOURCE = {
  ...GATEWAY_API_GROUP_VERSION,
  kind: 'Gateway',
  plural: 'gateways',
} as const;
export const GATEWAY_CLASS_RESOURCE = {
  ...GATEWAY_API_GROUP_VERSION,
  kind: 'GatewayClass',
  plural: 'gatewayclasses',
} as const;

/** The informers of `o`: Namespaces, then (with `gateways`) Gateways and GatewayClasses. */
export function ambientReads(kc: KubeConfig, o: KubeAmbientOptions, log: Logger): AmbientReads[] {
  const writes = o.target.readsAmbient();
  const handlers = (kind: AmbientKind, apiVersion: string, typeKind: string) => ({
    upsert: (obj: KubernetesObject) => {
      const res = parseAmbientObject({ ...obj, apiVersion, kind: typeKind });
      if (res === undefined) return;
      for (const i of res.issues)
        log.warn(res.ok ? 'config issue' : 'invalid config', { issue: formatIssue(i) });
      // An invalid version leaves the last valid one in effect (DESIGN habit 2).
      if (res.ok) writes.set(res.value);
    },
    delete: (obj: KubernetesObject) => {
      const md = obj.metadata ?? {};
      writes.remove(kind, kind === 'KubernetesGateway' ? (md.namespace ?? '') : '', md.name ?? '');
    },
  });
  const out: AmbientReads[] = [
    {
      spec: namespacesWatch(kc),
      reduce: nameAndLabels,
      handlers: handlers('Namespace', 'v1', 'Namespace'),
    },
  ];
  if (!o.gateways) return out;
  const apiVersion = `${GATEWAY_API_GROUP_VERSION.group}/${GATEWAY_API_GROUP_VERSION.version}`;
  for (const [r, kind, reduce] of [
    [GATEWAY_RESOURCE, 'KubernetesGateway', reduceGateway],
    [GATEWAY_CLASS_RESOURCE, 'GatewayClass', reduceGatewayClass],
  ] as const) {
    out.push({
      spec: clusterCustomObjectsWatch(kc, r.kind, r),
      reduce,
      handlers: handlers(kind, apiVersion, r.kind),
    });
  }
  return out;
}

/** The metadata read of a Gateway or GatewayClass: name, namespace, resourceVersion, the label and annotations used. */
function reduceMeta(obj: KubernetesObject): Record<string, unknown> {
  const { name, namespace, resourceVersion, labels, annotations } = obj.metadata ?? {};
  const pick = (m: Record<string, string> | undefined, keys: readonly string[]) => {
    const out: Record<string, string> = {};
    for (const k of keys) if (m !== undefined && Object.hasOwn(m, k)) out[k] = m[k]!;
    return out;
  };
  return {
    ...(name !== undefined ? { name } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    labels: pick(labels, [WAYPOINT_FOR_LABEL]),
    annotations: pick(annotations, [
      PROXY_IMAGE_ANNOTATION,
      WAYPOINT_INBOUND_BINDING_ANNOTATION,
      OWN_WAYPOINT_IMAGE_ANNOTATION,
    ]),
  };
}

/** A Gateway reduced to what model/parse/ambient.ts reads (the listeners' other fields, the status' others dropped). */
export function reduceGateway(obj: KubernetesObject): KubernetesObject {
  const raw: Record<string, unknown> = isPlainObject(obj) ? obj : {};
  const spec = isPlainObject(raw['spec']) ? raw['spec'] : {};
  const status = isPlainObject(raw['status']) ? raw['status'] : undefined;
  const listeners = Array.isArray(spec['listeners'])
    ? (spec['listeners'] as unknown[]).map((l) =>
        isPlainObject(l)
          ? { port: l['port'], protocol: l['protocol'], allowedRoutes: l['allowedRoutes'] }
          : l,
      )
    : spec['listeners'];
  return {
    metadata: reduceMeta(obj),
    spec: { gatewayClassName: spec['gatewayClassName'], listeners },
    ...(status !== undefined ? { status: { addresses: status['addresses'] } } : {}),
  } as KubernetesObject;
}

export function reduceGatewayClass(obj: KubernetesObject): KubernetesObject {
  return { metadata: reduceMeta(obj) };
}
