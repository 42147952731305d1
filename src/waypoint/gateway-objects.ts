/**
 * The Gateway API objects the waypoint's Gateway controller reads (gateway.networking.k8s.io/v1, istio/istio
 * pkg/config/schema/gvk/resources.gen.go @86c9f01f KubernetesGateway and GatewayClass): each reduced, before the
 * shared informer caches it, to the fields read here, and the validation of a Gateway of our class (one listener
 * `{name: proxy, port: 15088, protocol: istio.io/PROXY}`, as kgateway's waypoint translator accepts only an
 * `istio.io/PROXY` listener: docs/waypoint-own.md section 2).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { GATEWAY_API_GROUP, PROXY_LISTENER_PROTOCOL } from '../model/ambient/labels.ts';
import {
  OWN_WAYPOINT_CONTROLLER,
  OWN_WAYPOINT_IMAGE_ANNOTATION,
  OWN_WAYPOINT_LISTENER_NAME,
  OWN_WAYPOINT_PORT,
} from '../model/ambient/own-waypoint.ts';
import { isPlainObject } from '../util/json.ts';

export const GATEWAY_API_VERSION = 'v1';
export const GATEWAY_API = `${GATEWAY_API_GROUP}/${GATEWAY_API_VERSION}`;
export const GATEWAYS = {
  group: GATEWAY_API_GROUP,
  version: GATEWAY_API_VERSION,
  plural: 'gateways',
} as const;
export const GATEWAY_CLASSES = {
  group: GATEWAY_API_GROUP,
  version: GATEWAY_API_VERSION,
  plural: 'gatewayclasses',
} as const;

/** A metav1.Condition as read from and written to a status. */
export interface GatewayCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
  readonly lastTransitionTime?: string;
}

export interface GatewayAddress {
  readonly type: 'IPAddress' | 'Hostname';
  readonly value: string;
}

export interface GatewayClassInfo {
  readonly name: string;
  readonly generation: number;
  readonly controllerName: string;
  readonly conditions: readonly GatewayCondition[];
}

export interface GatewayListener {
  readonly name: unknown;
  readonly port: unknown;
  readonly protocol: unknown;
}

export interface GatewayInfo {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly generation: number;
  readonly className: string;
  /** `aeraki.io/proxy-image`, when set. */
  readonly image?: string;
  readonly listeners: unknown;
  readonly addresses: readonly GatewayAddress[];
  readonly conditions: readonly GatewayCondition[];
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const obj = (v: unknown): Record<string, unknown> => (isPlainObject(v) ? v : {});

function conditionsOf(status: unknown): GatewayCondition[] {
  const list = obj(status)['conditions'];
  if (!Array.isArray(list)) return [];
  return list.filter(isPlainObject).map((c) => ({
    type: text(c['type']),
    status: c['status'] === 'True' || c['status'] === 'False' ? c['status'] : 'Unknown',
    reason: text(c['reason']),
    message: text(c['message']),
    ...(typeof c['observedGeneration'] === 'number' ? { observedGeneration: c['observedGeneration'] } : {}),
    ...(typeof c['lastTransitionTime'] === 'string' ? { lastTransitionTime: c['lastTransitionTime'] } : {}),
  }));
}

function metaOf(o: KubernetesObject, annotation?: string): Record<string, unknown> {
  const m = o.metadata ?? {};
  const value = annotation === undefined ? undefined : m.annotations?.[annotation];
  return {
    ...(m.name !== undefined ? { name: m.name } : {}),
    ...(m.namespace !== undefined ? { namespace: m.namespace } : {}),
    ...(m.resourceVersion !== undefined ? { resourceVersion: m.resourceVersion } : {}),
    ...(m.uid !== undefined ? { uid: m.uid } : {}),
    ...(m.generation !== undefined ? { generation: m.generation } : {}),
    ...(value !== undefined && annotation !== undefined ? { annotations: { [annotation]: value } } : {}),
  };
}

/** The informer's reducer for GatewayClasses: name, generation, controllerName and the status conditions. */
export function reduceClass(o: KubernetesObject): KubernetesObject {
  const raw = o as unknown as Record<string, unknown>;
  return {
    metadata: metaOf(o),
    spec: { controllerName: obj(raw['spec'])['controllerName'] },
    status: { conditions: obj(raw['status'])['conditions'] },
  } as KubernetesObject;
}

/**
 * The informer's reducer for Gateways: name, uid, generation, the image annotation, the class, the listeners'
 * name, port and protocol, and the status' addresses and conditions.
 */
export function reduceGateway(o: KubernetesObject): KubernetesObject {
  const raw = o as unknown as Record<string, unknown>;
  const spec = obj(raw['spec']);
  const status = obj(raw['status']);
  const listeners = Array.isArray(spec['listeners'])
    ? (spec['listeners'] as unknown[]).map((l: unknown) =>
        isPlainObject(l) ? { name: l['name'], port: l['port'], protocol: l['protocol'] } : l,
      )
    : spec['listeners'];
  return {
    metadata: metaOf(o, OWN_WAYPOINT_IMAGE_ANNOTATION),
    spec: { gatewayClassName: spec['gatewayClassName'], listeners },
    status: { addresses: status['addresses'], conditions: status['conditions'] },
  } as KubernetesObject;
}

export function classInfoOf(o: KubernetesObject): GatewayClassInfo {
  const raw = o as unknown as Record<string, unknown>;
  return {
    name: o.metadata?.name ?? '',
    generation: num(o.metadata?.generation),
    controllerName: text(obj(raw['spec'])['controllerName']),
    conditions: conditionsOf(raw['status']),
  };
}

export function gatewayInfoOf(o: KubernetesObject): GatewayInfo {
  const raw = o as unknown as Record<string, unknown>;
  const spec = obj(raw['spec']);
  const addresses = obj(raw['status'])['addresses'];
  const image = o.metadata?.annotations?.[OWN_WAYPOINT_IMAGE_ANNOTATION];
  return {
    namespace: o.metadata?.namespace ?? '',
    name: o.metadata?.name ?? '',
    uid: o.metadata?.uid ?? '',
    generation: num(o.metadata?.generation),
    className: text(spec['gatewayClassName']),
    ...(image !== undefined && image !== '' ? { image } : {}),
    listeners: spec['listeners'],
    addresses: Array.isArray(addresses)
      ? addresses.filter(isPlainObject).map((a) => ({
          type: a['type'] === 'Hostname' ? 'Hostname' : 'IPAddress',
          value: text(a['value']),
        }))
      : [],
    conditions: conditionsOf(raw['status']),
  };
}

/** True for a class this controller runs (`spec.controllerName: aeraki.io/waypoint-controller`). */
export function isOwnClass(c: GatewayClassInfo): boolean {
  return c.controllerName === OWN_WAYPOINT_CONTROLLER;
}

/** Why a Gateway of our class is not accepted: the Gateway API reason and a message naming the field. */
export interface GatewayRejection {
  /** The Gateway API reason of `Accepted: False` for a listener problem (all problems here are). */
  readonly reason: 'ListenersNotValid';
  readonly field: string;
  readonly message: string;
}

const EXPECTED = `{name: ${OWN_WAYPOINT_LISTENER_NAME}, port: ${OWN_WAYPOINT_PORT}, protocol: ${PROXY_LISTENER_PROTOCOL}}`;

/**
 * The first problem of a Gateway's listeners, undefined when it has exactly the one listener we serve. The reason
 * is the Gateway API's (sigs.k8s.io/gateway-api apis/v1/gateway_types.go GatewayReasonListenersNotValid, one of the
 * reasons of `Accepted: False`); the message names the field. kgateway rejects the same shapes
 * (waypoint_translator.go buildInboundListener).
 */
export function validateGateway(g: Pick<GatewayInfo, 'listeners'>): GatewayRejection | undefined {
  const listeners = g.listeners;
  if (!Array.isArray(listeners) || listeners.length === 0) {
    return {
      reason: 'ListenersNotValid',
      field: 'spec.listeners',
      message: `spec.listeners: exactly one listener ${EXPECTED} is required`,
    };
  }
  for (let i = 0; i < listeners.length; i++) {
    const l = obj(listeners[i]);
    const at = `spec.listeners[${i}]`;
    if (i > 0) {
      return {
        reason: 'ListenersNotValid',
        field: at,
        message: `${at}: only one listener ${EXPECTED} is allowed`,
      };
    }
    const wrong = (field: string, want: string | number): GatewayRejection => ({
      reason: 'ListenersNotValid',
      field: `${at}.${field}`,
      message: `${at}.${field}: ${JSON.stringify(l[field] ?? null)} is not supported, want ${JSON.stringify(want)}`,
    });
    if (l['protocol'] !== PROXY_LISTENER_PROTOCOL) return wrong('protocol', PROXY_LISTENER_PROTOCOL);
    if (l['port'] !== OWN_WAYPOINT_PORT) return wrong('port', OWN_WAYPOINT_PORT);
    if (l['name'] !== OWN_WAYPOINT_LISTENER_NAME) return wrong('name', OWN_WAYPOINT_LISTENER_NAME);
  }
  return undefined;
}
