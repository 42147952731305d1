/**
 * Istio MeshConfig (the ConfigMap `istio` in the root namespace, key `mesh`, YAML), merged over Istio's
 * defaults (DEFAULT_MESH_CONFIG). Only the fields the generators use are read.
 * Reference: https://istio.io/latest/docs/reference/config/istio.mesh.v1alpha1/
 */
import { parse as parseYaml } from 'yaml';
import { isPlainObject } from '../../util/json.ts';
import { DEFAULT_MESH_CONFIG } from '../mesh.ts';
import type { MeshConfig } from '../objects.ts';
import { Fields } from './fields.ts';
import { fail, ok, warning, type ConfigIssue, type ObjectRef, type Result } from '../result.ts';

export const MESH_CONFIGMAP_NAME = 'istio';
export const MESH_CONFIGMAP_KEY = 'mesh';

export interface MeshParseOptions {
  /** Root namespace used when the mesh config does not set `rootNamespace` (default: istio-system). */
  readonly rootNamespace?: string;
  /** Object named in issues (default: ConfigMap <rootNamespace>/istio). */
  readonly ref?: ObjectRef;
}

/**
 * Parses `meshYaml` over the defaults. `defaultConfig.tracing` absent keeps Istio's default (present, sampling
 * 0); `defaultConfig.tracing: null` (explicitly removed) gives tracingSampling undefined.
 */
export function parseMeshConfig(meshYaml: string, options: MeshParseOptions = {}): Result<MeshConfig> {
  const rootNamespace = options.rootNamespace ?? DEFAULT_MESH_CONFIG.rootNamespace;
  const ref = options.ref ?? { kind: 'ConfigMap', namespace: rootNamespace, name: MESH_CONFIGMAP_NAME };
  const f = new Fields(ref);
  let doc: unknown;
  try {
    doc = parseYaml(meshYaml);
  } catch (err) {
    f.error('data.mesh', `invalid YAML: ${err instanceof Error ? err.message : String(err)}`);
    return fail(f.issues);
  }
  const base: MeshConfig = { ...DEFAULT_MESH_CONFIG, rootNamespace };
  if (doc === null || doc === undefined) return ok(base);
  if (!isPlainObject(doc)) {
    f.error('data.mesh', 'expected a YAML mapping');
    return fail(f.issues);
  }
  const p = 'data.mesh';
  const accessLogFile = f.string(doc, 'accessLogFile', `${p}.accessLogFile`);
  const accessLogFormat = f.string(doc, 'accessLogFormat', `${p}.accessLogFormat`);
  const enableTracing = f.boolean(doc, 'enableTracing', `${p}.enableTracing`);
  const root = f.string(doc, 'rootNamespace', `${p}.rootNamespace`);
  const accessLogEncoding = readEncoding(f, doc['accessLogEncoding'], `${p}.accessLogEncoding`);
  const tracingSampling = readSampling(f, doc, p, base.tracingSampling);
  if (f.issues.length > 0) return fail(f.issues);
  return ok({
    accessLogFile: accessLogFile ?? base.accessLogFile,
    accessLogEncoding: accessLogEncoding ?? base.accessLogEncoding,
    accessLogFormat: accessLogFormat ?? base.accessLogFormat,
    enableTracing: enableTracing ?? base.enableTracing,
    tracingSampling,
    rootNamespace: root !== undefined && root !== '' ? root : base.rootNamespace,
  });
}

function readEncoding(f: Fields, v: unknown, path: string): 'TEXT' | 'JSON' | undefined {
  if (v === undefined || v === null) return undefined;
  if (v === 'TEXT' || v === 0) return 'TEXT';
  if (v === 'JSON' || v === 1) return 'JSON';
  f.error(path, `expected TEXT or JSON, got ${JSON.stringify(v)}`);
  return undefined;
}

function readSampling(
  f: Fields,
  doc: Record<string, unknown>,
  p: string,
  fallback: number | undefined,
): number | undefined {
  const dc = f.object(doc, 'defaultConfig', `${p}.defaultConfig`);
  if (!dc || !('tracing' in dc)) return fallback;
  if (dc['tracing'] === null) return undefined;
  const tracing = f.object(dc, 'tracing', `${p}.defaultConfig.tracing`);
  if (!tracing) return fallback;
  const path = `${p}.defaultConfig.tracing.sampling`;
  const sampling = f.number(tracing, 'sampling', path);
  if (sampling === undefined) return 0;
  if (sampling < 0 || sampling > 100) {
    f.error(path, `expected a percentage between 0 and 100, got ${sampling}`);
    return fallback;
  }
  return sampling;
}

/**
 * When `raw` is the mesh ConfigMap (`v1` ConfigMap named `istio` in `rootNamespace`), its parsed mesh config
 * (defaults when it has no `mesh` key); otherwise undefined.
 */
export function meshConfigFromConfigMap(raw: unknown, rootNamespace: string): Result<MeshConfig> | undefined {
  if (!isMeshConfigMap(raw, rootNamespace)) return undefined;
  const ref = { kind: 'ConfigMap', namespace: rootNamespace, name: MESH_CONFIGMAP_NAME };
  const data = raw['data'];
  if (data === undefined || data === null) return ok({ ...DEFAULT_MESH_CONFIG, rootNamespace });
  if (!isPlainObject(data)) {
    const f = new Fields(ref);
    f.error('data', 'expected an object');
    return fail(f.issues);
  }
  const mesh = data[MESH_CONFIGMAP_KEY];
  if (mesh === undefined || mesh === null) return ok({ ...DEFAULT_MESH_CONFIG, rootNamespace });
  if (typeof mesh !== 'string') {
    const f = new Fields(ref);
    f.error('data.mesh', 'expected a string');
    return fail(f.issues);
  }
  return parseMeshConfig(mesh, { rootNamespace, ref });
}

/**
 * When `raw` is a ConfigMap named `istio` with a `data.mesh` key outside `rootNamespace`: a warning that it is
 * ignored (only the root namespace's is read); otherwise undefined.
 */
export function misplacedMeshConfigMap(raw: unknown, rootNamespace: string): ConfigIssue | undefined {
  if (!isPlainObject(raw) || raw['kind'] !== 'ConfigMap') return undefined;
  const apiVersion = raw['apiVersion'];
  if (apiVersion !== undefined && apiVersion !== 'v1') return undefined;
  const md = raw['metadata'];
  const data = raw['data'];
  if (!isPlainObject(md) || md['name'] !== MESH_CONFIGMAP_NAME || md['namespace'] === rootNamespace)
    return undefined;
  if (!isPlainObject(data) || !Object.hasOwn(data, MESH_CONFIGMAP_KEY)) return undefined;
  const namespace = typeof md['namespace'] === 'string' ? md['namespace'] : '';
  return warning(
    { kind: 'ConfigMap', namespace, name: MESH_CONFIGMAP_NAME },
    'data.mesh',
    `the mesh config is read from ConfigMap ${rootNamespace}/${MESH_CONFIGMAP_NAME} only (the root namespace): ` +
      'this one is ignored',
  );
}

export function isMeshConfigMap(raw: unknown, rootNamespace: string): raw is Record<string, unknown> {
  if (!isPlainObject(raw) || raw['kind'] !== 'ConfigMap') return false;
  const apiVersion = raw['apiVersion'];
  if (apiVersion !== undefined && apiVersion !== 'v1') return false;
  const md = raw['metadata'];
  return isPlainObject(md) && md['name'] === MESH_CONFIGMAP_NAME && md['namespace'] === rootNamespace;
}
