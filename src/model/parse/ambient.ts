/**
 * Reading what ambient mode is configured with, tolerantly (DESIGN habits 2 and 13): a Namespace (its name and
 * labels), a Gateway API Gateway (`gateway.networking.k8s.io` v1 or v1beta1, any class: istiod turns any Gateway
 * with `status.addresses` into a waypoint, docs/ambient-istio.md section 2.2) and a GatewayClass, each reduced to
 * the projection the binding reads (model/ambient/binding.ts, waypoint.ts) and nothing else. A wrong field is an
 * issue naming the object and the field; it rejects that object only. Nothing here throws on bad input.
 *
 * The kinds and versions are istiod's (istio/istio pkg/config/schema/gvk/resources.gen.go @86c9f01f:
 * KubernetesGateway and GatewayClass in `gateway.networking.k8s.io` v1, with v1beta1 aliases
 * KubernetesGateway_v1beta1 and GatewayClass_v1beta1).
 */
import { isPlainObject } from '../../util/json.ts';
import type { AmbientNamespace } from '../ambient/binding.ts';
import {
  GATEWAY_API_GROUP,
  PROXY_IMAGE_ANNOTATION,
  WAYPOINT_FOR_LABEL,
  WAYPOINT_INBOUND_BINDING_ANNOTATION,
} from '../ambient/labels.ts';
import { OWN_WAYPOINT_IMAGE_ANNOTATION } from '../ambient/own-waypoint.ts';
import type { LabelSelector, LabelSelectorRequirement } from '../ambient/selector.ts';
import type { WaypointGateway, WaypointGatewayClass, WaypointListener } from '../ambient/waypoint.ts';
import { fail, hasErrors, ok, warning, type ConfigIssue, type ObjectRef, type Result } from '../result.ts';
import { describe, Fields, type Raw } from './fields.ts';
import { DEFAULT_NAMESPACE } from './parse.ts';

/**
 * The kinds read for ambient mode, as the store's events name them: `KubernetesGateway` is istiod's name for the
 * Gateway API Gateway (gvk.KubernetesGateway), telling it from the Istio Gateway (kind `Gateway`).
 */
export type AmbientKind = 'Namespace' | 'KubernetesGateway' | 'GatewayClass';

/** The apiVersions read, the preferred one first. */
export const GATEWAY_API_VERSIONS = [`${GATEWAY_API_GROUP}/v1`, `${GATEWAY_API_GROUP}/v1beta1`] as const;

export type AmbientObject =
  | { readonly kind: 'Namespace'; readonly value: AmbientNamespace }
  | { readonly kind: 'KubernetesGateway'; readonly value: WaypointGateway }
  | { readonly kind: 'GatewayClass'; readonly value: WaypointGatewayClass };

/** The ambient kind of `raw` (by kind and apiVersion), or undefined when it is none of them. */
export function ambientKindOf(raw: unknown): AmbientKind | undefined {
  if (!isPlainObject(raw)) return undefined;
  const { kind, apiVersion } = raw;
  if (kind === 'Namespace') return apiVersion === 'v1' ? 'Namespace' : undefined;
  if (!(GATEWAY_API_VERSIONS as readonly unknown[]).includes(apiVersion)) return undefined;
  if (kind === 'Gateway') return 'KubernetesGateway';
  return kind === 'GatewayClass' ? 'GatewayClass' : undefined;
}

/**
 * Parses one object of an ambient kind; undefined when `raw` is of no ambient kind. `statusKnown: false` (MCP:
 * istiod sends no status) reads a Gateway as addressed whatever its status says (see docs/ambient-istio.md).
 */
export function parseAmbientObject(
  raw: unknown,
  options: { readonly statusKnown?: boolean } = {},
): Result<AmbientObject> | undefined {
  const kind = ambientKindOf(raw);
  if (kind === undefined || !isPlainObject(raw)) return undefined;
  const md = isPlainObject(raw['metadata']) ? raw['metadata'] : {};
  const name = typeof md['name'] === 'string' ? md['name'] : '';
  const ns =
    typeof md['namespace'] === 'string' && md['namespace'] !== '' ? md['namespace'] : DEFAULT_NAMESPACE;
  // Issues name the object as written (`Gateway shop/w`), as `kubectl` would.
  const f = new Fields({
    kind: raw['kind'] as string,
    namespace: kind === 'KubernetesGateway' ? ns : '',
    name,
  });
  if (!isPlainObject(raw['metadata'])) f.error('metadata', 'required field is missing');
  else f.requiredString(md, 'name', 'metadata.name');
  if (name === '' && typeof md['name'] === 'string') f.error('metadata.name', 'must not be empty');
  const labels = f.stringMap(md, 'labels', 'metadata.labels');
  const annotations = f.stringMap(md, 'annotations', 'metadata.annotations');
  const out = readKind(
    f,
    kind,
    raw,
    { name, namespace: ns, labels, annotations },
    options.statusKnown ?? true,
  );
  return hasErrors(f.issues) || out === undefined ? fail(f.issues) : ok(out, f.issues);
}

interface Meta {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
}

function readKind(
  f: Fields,
  kind: AmbientKind,
  raw: Raw,
  md: Meta,
  statusKnown: boolean,
): AmbientObject | undefined {
  switch (kind) {
    case 'Namespace':
      return { kind, value: { name: md.name, labels: md.labels } };
    case 'GatewayClass':
      return {
        kind,
        value: {
          name: md.name,
          ...optional('waypointFor', md.labels[WAYPOINT_FOR_LABEL]),
          ...optional('inboundBinding', md.annotations[WAYPOINT_INBOUND_BINDING_ANNOTATION]),
        },
      };
    case 'KubernetesGateway': {
      const value = readGateway(f, raw, md, statusKnown);
      return value === undefined ? undefined : { kind, value };
    }
  }
}

function readGateway(f: Fields, raw: Raw, md: Meta, statusKnown: boolean): WaypointGateway | undefined {
  const spec = f.object(raw, 'spec', 'spec');
  if (spec === undefined) {
    if (raw['spec'] === undefined || raw['spec'] === null) f.error('spec', 'required field is missing');
    return undefined;
  }
  const className = f.requiredString(spec, 'gatewayClassName', 'spec.gatewayClassName') ?? '';
  const listeners = f.objects(spec, 'listeners', 'spec.listeners', readListener);
  return {
    namespace: md.namespace,
    name: md.name,
    className,
    ...optional('waypointFor', md.labels[WAYPOINT_FOR_LABEL]),
    ...optional('proxyImage', md.annotations[PROXY_IMAGE_ANNOTATION]),
    ...optional('ownWaypointImage', md.annotations[OWN_WAYPOINT_IMAGE_ANNOTATION]),
    ...optional('inboundBinding', md.annotations[WAYPOINT_INBOUND_BINDING_ANNOTATION]),
    addressed: statusKnown ? addressed(f, raw) : true,
    listeners,
  };
}

/** `status.addresses` is a non-empty list (gatewayToWaypointTransform); a malformed status is a warning. */
function addressed(f: Fields, raw: Raw): boolean {
  const status = raw['status'];
  if (status === undefined || status === null) return false;
  if (!isPlainObject(status)) {
    f.issues.push(
      warning(f.ref, 'status', `expected an object, got ${describe(status)}; read as no address`),
    );
    return false;
  }
  const addresses = status['addresses'];
  if (addresses === undefined || addresses === null) return false;
  if (!Array.isArray(addresses)) {
    const message = `expected a list, got ${describe(addresses)}; read as no address`;
    f.issues.push(warning(f.ref, 'status.addresses', message));
    return false;
  }
  return addresses.length > 0;
}

function readListener(f: Fields, l: Raw, path: string): WaypointListener | undefined {
  const port = f.integer(l, 'port', `${path}.port`, 1, 65535);
  if (port === undefined && (l['port'] === undefined || l['port'] === null)) {
    f.error(`${path}.port`, 'required field is missing');
  }
  const protocol = f.requiredString(l, 'protocol', `${path}.protocol`);
  const routes = f.object(l, 'allowedRoutes', `${path}.allowedRoutes`);
  const nsRaw = routes && f.object(routes, 'namespaces', `${path}.allowedRoutes.namespaces`);
  const allowedNamespaces = nsRaw && readAllowedNamespaces(f, nsRaw, `${path}.allowedRoutes.namespaces`);
  if (port === undefined || protocol === undefined) return undefined;
  return { port, protocol, ...(allowedNamespaces ? { allowedNamespaces } : {}) };
}

function readAllowedNamespaces(f: Fields, ns: Raw, path: string): WaypointListener['allowedNamespaces'] {
  const from = f.string(ns, 'from', `${path}.from`);
  const sel = f.object(ns, 'selector', `${path}.selector`);
  const selector = sel && readSelector(f, sel, `${path}.selector`);
  return { ...optional('from', from), ...(selector ? { selector } : {}) };
}

function readSelector(f: Fields, sel: Raw, path: string): LabelSelector {
  const matchLabels = f.stringMap(sel, 'matchLabels', `${path}.matchLabels`);
  const matchExpressions = f.objects(sel, 'matchExpressions', `${path}.matchExpressions`, (g, e, p) => {
    const key = g.requiredString(e, 'key', `${p}.key`);
    const operator = g.requiredString(e, 'operator', `${p}.operator`);
    const values = g.stringList(e, 'values', `${p}.values`);
    if (key === undefined || operator === undefined) return undefined;
    const r: LabelSelectorRequirement = { key, operator, ...(values.length > 0 ? { values } : {}) };
    return r;
  });
  return {
    ...(sel['matchLabels'] !== undefined ? { matchLabels } : {}),
    ...(sel['matchExpressions'] !== undefined ? { matchExpressions } : {}),
  };
}

function optional<K extends string>(key: K, v: string | undefined): { [P in K]?: string } {
  return (v === undefined ? {} : { [key]: v }) as { [P in K]?: string };
}

/**
 * The near-miss warning of a document that almost names an ambient kind (DESIGN habit 13: nothing skipped without
 * a word): a Gateway API kind in a version not read (`gateway.networking.k8s.io/v1alpha2`), a kind differing from
 * one only in case (`Gatewayclass`), a Namespace whose apiVersion is not `v1`. Undefined otherwise (an Istio
 * Gateway is no near miss).
 */
export function ambientNearMiss(raw: unknown): ConfigIssue | undefined {
  if (!isPlainObject(raw) || typeof raw['kind'] !== 'string') return undefined;
  if (ambientKindOf(raw) !== undefined) return undefined;
  const kind = raw['kind'];
  const apiVersion = typeof raw['apiVersion'] === 'string' ? raw['apiVersion'] : '';
  const md = isPlainObject(raw['metadata']) ? raw['metadata'] : {};
  const name = typeof md['name'] === 'string' ? md['name'] : '';
  const ns =
    typeof md['namespace'] === 'string' && md['namespace'] !== '' ? md['namespace'] : DEFAULT_NAMESPACE;
  const gatewayApi = apiVersion.startsWith(`${GATEWAY_API_GROUP}/`);
  const preferred = GATEWAY_API_VERSIONS[0];
  const ref = (k: string, namespaced: boolean): ObjectRef => ({
    kind: k,
    namespace: namespaced ? ns : '',
    name,
  });
  if (kind === 'Namespace') {
    const found = apiVersion === '' ? 'required field is missing' : `${apiVersion} is not served`;
    return warning(ref(kind, false), 'apiVersion', `${found}; did you mean v1?`);
  }
  if (!gatewayApi) return undefined;
  if (kind === 'Gateway' || kind === 'GatewayClass') {
    const message = `${apiVersion} is not read; did you mean ${preferred}?`;
    return warning(ref(kind, kind === 'Gateway'), 'apiVersion', message);
  }
  const folded = ['Gateway', 'GatewayClass'].find((k) => k.toLowerCase() === kind.toLowerCase());
  if (folded === undefined) return undefined;
  const message = `${kind} is not served (kinds are case-sensitive); did you mean ${folded}?`;
  return warning(ref(kind, folded === 'Gateway'), 'kind', message);
}
