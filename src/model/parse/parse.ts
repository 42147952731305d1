/**
 * Untrusted Kubernetes-style JSON ({apiVersion, kind, metadata, spec}) → the typed, frozen model of objects.ts.
 * Wrong types and missing required fields become ConfigIssues naming the object and the field path
 * (`spec.ports[1].name`); an object with any error is rejected as a whole (ok: false), one with only warnings
 * (MetaRouter rules, validate/metarouter.ts) is returned with them. Unknown fields are ignored, except by the
 * kinds read strictly (Aeraki's own: MetaRouter, ApplicationProtocol and the plugins' kinds; parse/strict.ts),
 * where they are errors. The plugins' kinds are read when the options name them (ParseOptions.kinds, from the
 * plugin list). Never throws on input.
 */
import { deepFreeze, isPlainObject } from '../../util/json.ts';
import { apiVersionOf, type KindSpec } from '../kinds.ts';
import type { ConfigKind, ConfigObject, ObjectMeta } from '../objects.ts';
import { readApplicationProtocolSpec, readMetaRouterSpec } from './aeraki.ts';
import { Fields, NO_STRINGS, type Raw } from './fields.ts';
import {
  readDestinationRuleSpec,
  readGatewaySpec,
  readServiceEntrySpec,
  readVirtualServiceSpec,
} from './istio.ts';
import { readSecretBody } from './secret.ts';
import { fail, hasErrors, ok, type ObjectRef, type Result } from '../result.ts';
import { CLUSTER_DOMAIN } from '../constants.ts';
import { convertServiceSpec, readKubeServiceSpec } from './service.ts';

export { isMeshConfigMap, meshConfigFromConfigMap, misplacedMeshConfigMap, parseMeshConfig } from './mesh.ts';

const ISTIO_VERSIONS: ReadonlySet<string> = new Set([
  'networking.istio.io/v1alpha3',
  'networking.istio.io/v1beta1',
  'networking.istio.io/v1',
]);
const AERAKI_VERSIONS: ReadonlySet<string> = new Set(['metaprotocol.aeraki.io/v1alpha1']);
const CORE_VERSIONS: ReadonlySet<string> = new Set(['v1']);

/**
 * How objects are read: the cluster domain of Kubernetes Service hosts (`--cluster-domain`) and the plugins' kinds
 * (plugins/registry.ts; absent: the core's kinds only).
 */
export interface ParseOptions {
  readonly clusterDomain: string;
  readonly kinds?: readonly KindSpec[];
  /**
   * The scope the API server gives the object's resource, where it decides (objects read from the Kubernetes API):
   * Aeraki's Helm chart serves ApplicationProtocol namespaced, ours cluster-scoped. Absent: the kind's own scope.
   */
  readonly namespaced?: boolean;
}

export const DEFAULT_PARSE_OPTIONS: ParseOptions = Object.freeze({ clusterDomain: CLUSTER_DOMAIN });

/** What a spec reader may need besides the spec: the object's metadata and the parse options. */
interface SpecContext {
  readonly metadata: ObjectMeta;
  readonly options: ParseOptions;
}

type SpecReader = (f: Fields, spec: Raw, ctx: SpecContext) => unknown;

/** A Kubernetes Service becomes the ServiceEntry spec istiod synthesises for it (service.ts). */
const readServiceAsEntry: SpecReader = (f, spec, ctx) =>
  convertServiceSpec(ctx.metadata, readKubeServiceSpec(f, spec), ctx.options.clusterDomain);

interface KindInfo {
  readonly versions: ReadonlySet<string>;
  readonly clusterScoped: boolean;
  readonly read: SpecReader;
  /** The kind has no spec: `read` gets the whole object and its result becomes the model's `spec` (Secret). */
  readonly topLevel?: boolean;
}

const CORE_KINDS: Readonly<Partial<Record<ConfigKind, KindInfo>>> = {
  ServiceEntry: { versions: ISTIO_VERSIONS, clusterScoped: false, read: readServiceEntrySpec },
  VirtualService: { versions: ISTIO_VERSIONS, clusterScoped: false, read: readVirtualServiceSpec },
  DestinationRule: { versions: ISTIO_VERSIONS, clusterScoped: false, read: readDestinationRuleSpec },
  Gateway: { versions: ISTIO_VERSIONS, clusterScoped: false, read: readGatewaySpec },
  MetaRouter: { versions: AERAKI_VERSIONS, clusterScoped: false, read: readMetaRouterSpec },
  ApplicationProtocol: { versions: AERAKI_VERSIONS, clusterScoped: true, read: readApplicationProtocolSpec },
  Service: { versions: CORE_VERSIONS, clusterScoped: false, read: readServiceAsEntry },
  Secret: { versions: CORE_VERSIONS, clusterScoped: false, read: readSecretBody, topLevel: true },
};

/** Namespace given to namespaced objects whose metadata has none (as `kubectl apply` would in its default context). */
export const DEFAULT_NAMESPACE = 'default';

/** The core's kinds, then the plugins' (`kinds`), by kind; built once per list of plugin kinds. */
const tables = new WeakMap<readonly KindSpec[], ReadonlyMap<string, KindInfo>>();
const CORE_TABLE: ReadonlyMap<string, KindInfo> = new Map(Object.entries(CORE_KINDS));

function kindTable(kinds: readonly KindSpec[] | undefined): ReadonlyMap<string, KindInfo> {
  if (kinds === undefined || kinds.length === 0) return CORE_TABLE;
  let table = tables.get(kinds);
  if (table === undefined) {
    const m = new Map(CORE_TABLE);
    for (const k of kinds) {
      m.set(k.kind, {
        versions: new Set([apiVersionOf(k)]),
        clusterScoped: !k.namespaced,
        read: (f, spec) => k.readSpec(f, spec),
      });
    }
    tables.set(kinds, (table = m));
  }
  return table;
}

/**
 * The kinds this controller reads (the core's and `kinds`), each with the apiVersions it reads them in (the
 * preferred one last) and whether it is cluster-scoped (model/parse/near-miss.ts names them for documents that
 * almost match one).
 */
export function readKinds(
  kinds?: readonly KindSpec[],
): { kind: ConfigKind; versions: readonly string[]; clusterScoped: boolean }[] {
  return [...kindTable(kinds)].map(([kind, info]) => ({
    kind: kind as ConfigKind,
    versions: [...info.versions],
    clusterScoped: info.clusterScoped,
  }));
}

/** The kind and apiVersion of `raw` when it is one this controller reads (the core's and `kinds`). */
export function recognisedKind(raw: unknown, kinds?: readonly KindSpec[]): ConfigKind | undefined {
  if (!isPlainObject(raw)) return undefined;
  const kind = raw['kind'];
  const apiVersion = raw['apiVersion'];
  if (typeof kind !== 'string' || typeof apiVersion !== 'string') return undefined;
  const info = kindTable(kinds).get(kind);
  return info?.versions.has(apiVersion) === true ? (kind as ConfigKind) : undefined;
}

/**
 * Parses one object. Returns undefined when it is not a kind this controller reads (including ConfigMaps, see
 * meshConfigFromConfigMap). The result value is deeply frozen: parsed objects are shared input (store, generators,
 * route builder), so no reader may change them. A `v1 Service` is returned converted (kind `Service`, the
 * ServiceEntry spec istiod would synthesise; see service.ts).
 */
export function parseConfigObject(
  raw: unknown,
  options: ParseOptions = DEFAULT_PARSE_OPTIONS,
): Result<ConfigObject> | undefined {
  const kind = recognisedKind(raw, options.kinds);
  if (kind === undefined || !isPlainObject(raw)) return undefined;
  const info = kindTable(options.kinds).get(kind);
  if (info === undefined) return undefined;
  const mdRaw = raw['metadata'];
  const md = isPlainObject(mdRaw) ? mdRaw : {};
  const nameV = md['name'];
  const nsV = md['namespace'];
  const name = typeof nameV === 'string' ? nameV : '';
  const clusterScoped = options.namespaced === undefined ? info.clusterScoped : !options.namespaced;
  const namespace = clusterScoped ? '' : typeof nsV === 'string' && nsV !== '' ? nsV : DEFAULT_NAMESPACE;
  const ref: ObjectRef = { kind, namespace, name };
  const f = new Fields(ref);
  if (!isPlainObject(mdRaw)) f.error('metadata', 'required field is missing');
  const metadata = readMeta(f, md, name, namespace);
  const specRaw = info.topLevel === true ? raw : raw['spec'];
  let spec: unknown;
  if (isPlainObject(specRaw)) spec = info.read(f, specRaw, { metadata, options });
  else if (specRaw === undefined || specRaw === null) f.error('spec', 'required field is missing');
  else f.error('spec', 'expected an object');
  if (hasErrors(f.issues) || spec === undefined) return fail(f.issues);
  const obj = {
    apiVersion: knownVersion(info.versions, raw['apiVersion']),
    kind,
    metadata,
    spec,
  } as ConfigObject;
  return ok(deepFreeze(obj), f.issues);
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
  return {
    name,
    namespace,
    labels: f.stringMap(md, 'labels', 'metadata.labels'),
    annotations: withoutUnread(f.stringMap(md, 'annotations', 'metadata.annotations')),
    creationTimestamp: readTimestamp(f, md['creationTimestamp']),
    resourceVersion: readResourceVersion(f, md['resourceVersion']),
    ...(generation !== undefined ? { generation } : {}),
    ...(uid !== undefined ? { uid } : {}),
  };
}

/**
 * The apiVersion as the kind table spells it (recognisedKind checked it is one of them): one string shared by every
 * object of the version, not one per object decoded.
 */
function knownVersion(versions: ReadonlySet<string>, apiVersion: unknown): unknown {
  for (const v of versions) if (v === apiVersion) return v;
  return apiVersion;
}

/**
 * kubectl's `kubectl.kubernetes.io/last-applied-configuration` (k8s.io/api core/v1 annotation_key_constants.go,
 * LastAppliedConfigAnnotation): the whole object again, as JSON, on every object written with `kubectl apply`.
 * Nothing here reads it (generation, status, analysis, the debug pages), so a parsed object does not hold it.
 */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

function withoutUnread(annotations: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  if (!(LAST_APPLIED_ANNOTATION in annotations)) return annotations;
  const { [LAST_APPLIED_ANNOTATION]: _unread, ...rest } = annotations;
  return Object.keys(rest).length > 0 ? rest : NO_STRINGS;
}

function readTimestamp(f: Fields, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? '' : v.toISOString();
  if (typeof v !== 'string' || (v !== '' && Number.isNaN(Date.parse(v)))) {
    f.error('metadata.creationTimestamp', 'expected an RFC 3339 timestamp');
    return '';
  }
  return v;
}

function readResourceVersion(f: Fields, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return String(v);
  f.error('metadata.resourceVersion', 'expected a string');
  return '';
}
