/**
 * Untrusted Kubernetes-style JSON ({apiVersion, kind, metadata, spec}) → the typed, frozen model of objects.ts.
 * Wrong types and missing required fields become ConfigIssues naming the object and the field path
 * (`spec.ports[1].name`); an object with any issue is rejected as a whole (ok: false). Unknown fields are
 * ignored. Never throws on input.
 */
import * as utilJson from '../util/json.ts';
import type { ConfigKind, ConfigObject, ObjectMeta } from './objects.ts';
import { readApplicationProtocolSpec, readMetaRouterSpec } from './parse-aeraki.ts';
import { Fields, type Raw } from './parse-fields.ts';
import {
  readDestinationRuleSpec,
  readGatewaySpec,
  readServiceEntrySpec,
  readVirtualServiceSpec,
} from './parse-istio.ts';
import { fail, ok, type ObjectRef, type Result } from './result.ts';

// Bound once (called per field; under a CommonJS transform each call through an import is a getter call).
const { deepFreeze, isPlainObject } = utilJson;

export { isMeshConfigMap, meshConfigFromConfigMap, parseMeshConfig } from './parse-mesh.ts';

const ISTIO_VERSIONS: ReadonlySet<string> = new Set([
  'networking.istio.io/v1alpha3',
  'networking.istio.io/v1beta1',
  'networking.istio.io/v1',
]);
const AERAKI_VERSIONS: ReadonlySet<string> = new Set(['metaprotocol.aeraki.io/v1alpha1']);

type SpecReader = (f: Fields, spec: Raw) => unknown;

interface KindInfo {
  readonly versions: ReadonlySet<string>;
  readonly clusterScoped: boolean;
  readonly read: SpecReader;
}

const KINDS: Readonly<Record<ConfigKind, KindInfo>> = {
  ServiceEntry: { versions: ISTIO_VERSIONS, clusterScoped: false, read: readServiceEntrySpec },
  VirtualService: { versions: ISTIO_VERSIONS, clusterScoped: false, read: readVirtualServiceSpec },
  DestinationRule: { versions: ISTIO_VERSIONS, clusterScoped: false, read: readDestinationRuleSpec },
  Gateway: { versions: ISTIO_VERSIONS, clusterScoped: false, read: readGatewaySpec },
  MetaRouter: { versions: AERAKI_VERSIONS, clusterScoped: false, read: readMetaRouterSpec },
  ApplicationProtocol: { versions: AERAKI_VERSIONS, clusterScoped: true, read: readApplicationProtocolSpec },
};

/** Namespace given to namespaced objects whose metadata has none (as `kubectl apply` would in its default context). */
export const DEFAULT_NAMESPACE = 'default';

/** The kind and apiVersion of `raw` when it is one this controller reads. */
export function recognisedKind(raw: unknown): ConfigKind | undefined {
  if (!isPlainObject(raw)) return undefined;
  const kind = raw['kind'];
  const apiVersion = raw['apiVersion'];
  if (typeof kind !== 'string' || typeof apiVersion !== 'string') return undefined;
  if (!Object.hasOwn(KINDS, kind)) return undefined;
  const info = KINDS[kind as ConfigKind];
  return info.versions.has(apiVersion) ? (kind as ConfigKind) : undefined;
}

/**
 * Parses one object. Returns undefined when it is not a kind this controller reads (including ConfigMaps, see
 * meshConfigFromConfigMap). The result value is deeply frozen.
 */
export function parseConfigObject(raw: unknown): Result<ConfigObject> | undefined {
  const kind = recognisedKind(raw);
  if (kind === undefined || !isPlainObject(raw)) return undefined;
  const info = KINDS[kind];
  const mdRaw = raw['metadata'];
  const md = isPlainObject(mdRaw) ? mdRaw : {};
  const nameV = md['name'];
  const nsV = md['namespace'];
  const name = typeof nameV === 'string' ? nameV : '';
  const namespace = info.clusterScoped ? '' : typeof nsV === 'string' && nsV !== '' ? nsV : DEFAULT_NAMESPACE;
  const ref: ObjectRef = { kind, namespace, name };
  const f = new Fields(ref);
  if (!isPlainObject(mdRaw)) f.error('metadata', 'required field is missing');
  const metadata = readMeta(f, md, name, namespace);
  const specRaw = raw['spec'];
  let spec: unknown;
  if (isPlainObject(specRaw)) spec = info.read(f, specRaw);
  else if (specRaw === undefined || specRaw === null) f.error('spec', 'required field is missing');
  else f.error('spec', 'expected an object');
  if (f.issues.length > 0 || spec === undefined) return fail(f.issues);
  const obj = { apiVersion: raw['apiVersion'], kind, metadata, spec } as ConfigObject;
  return ok(deepFreeze(obj));
}

function readMeta(f: Fields, md: Raw, name: string, namespace: string): ObjectMeta {
  if (md['name'] === undefined || md['name'] === null || md['name'] === '') {
    f.error('metadata.name', 'required field is missing');
  } else if (typeof md['name'] !== 'string') f.error('metadata.name', 'expected a string');
  if (md['namespace'] !== undefined && md['namespace'] !== null && typeof md['namespace'] !== 'string') {
    f.error('metadata.namespace', 'expected a string');
  }
  const generation = f.integer(md, 'generation', 'metadata.generation', 0, Number.MAX_SAFE_INTEGER);
  const uid = f.string(md, 'uid', 'metadata.uid');
  const meta: { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] } = {
    name,
    namespace,
    labels: f.stringMap(md, 'labels', 'metadata.labels'),
    annotations: f.stringMap(md, 'annotations', 'metadata.annotations'),
    creationTimestamp: readTimestamp(f, md['creationTimestamp']),
    resourceVersion: readResourceVersion(f, md['resourceVersion']),
  };
  // Assigned in place (same key order as a spread, without the temporary objects).
  if (generation !== undefined) meta.generation = generation;
  if (uid !== undefined) meta.uid = uid;
  return Object.freeze(meta); // all parts frozen or primitive: deepFreeze stops here
}

function readTimestamp(f: Fields, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? '' : v.toISOString();
  if (typeof v !== 'string' || (v !== '' && !isPlainUtcSeconds(v) && Number.isNaN(Date.parse(v)))) {
    f.error('metadata.creationTimestamp', 'expected an RFC 3339 timestamp');
    return '';
  }
  return v;
}

/** Digit at `i` of `s` (0..9), or -1. */
function digit(s: string, i: number): number {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

function twoDigits(s: string, i: number, max: number): boolean {
  const a = digit(s, i);
  const b = digit(s, i + 1);
  return a >= 0 && b >= 0 && a * 10 + b <= max;
}

/**
 * True for `YYYY-MM-DDTHH:MM:SSZ` with a day of month <= 28 (what the API server and the MCP envelope write):
 * a form Date.parse always accepts, so that call (slow on the bulk path) can be skipped.
 */
function isPlainUtcSeconds(v: string): boolean {
  return (
    v.length === 20 &&
    v.charCodeAt(4) === 45 &&
    v.charCodeAt(7) === 45 &&
    v.charCodeAt(10) === 84 &&
    v.charCodeAt(13) === 58 &&
    v.charCodeAt(16) === 58 &&
    v.charCodeAt(19) === 90 &&
    digit(v, 0) >= 0 &&
    digit(v, 1) >= 0 &&
    digit(v, 2) >= 0 &&
    digit(v, 3) >= 0 &&
    twoDigits(v, 5, 12) &&
    (v.charCodeAt(5) !== 48 || v.charCodeAt(6) !== 48) &&
    twoDigits(v, 8, 28) &&
    (v.charCodeAt(8) !== 48 || v.charCodeAt(9) !== 48) &&
    twoDigits(v, 11, 23) &&
    twoDigits(v, 14, 59) &&
    twoDigits(v, 17, 59)
  );
}

function readResourceVersion(f: Fields, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  f.error('metadata.resourceVersion', 'expected a string');
  return '';
}
