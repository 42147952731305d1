/**
 * An EnvoyFilter (as the API server answers it, or as this controller generates it: the same JSON shape) reduced
 * to what the analyzers read (EnvoyFilterFacts): labels, the `aeraki.io/source` annotation, the priority, and per
 * config patch its applyTo, operation, context and listener match (name, portNumber, filterChain.destinationPort
 * and filterChain.filter.name), the workloadSelector's labels and the targetRefs. Never throws; undefined for something that is not an object with a name.
 */
import type { PolicyTargetRef } from '../model/ambient/envoyfilter.ts';
import { SOURCE_ANNOTATION } from '../model/constants.ts';
import { isPlainObject } from '../util/json.ts';
import type { EnvoyFilterFacts, EnvoyFilterPatchFacts } from './types.ts';

type Raw = Record<string, unknown>;

const obj = (v: unknown): Raw => (isPlainObject(v) ? v : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(obj(v))) if (typeof x === 'string') out[k] = x;
  return out;
}

function patchFacts(raw: unknown): EnvoyFilterPatchFacts {
  const p = obj(raw);
  const match = obj(p['match']);
  const listener = obj(match['listener']);
  const chain = obj(listener['filterChain']);
  const filter = obj(chain['filter']);
  const context = str(match['context']);
  const listenerName = str(listener['name']);
  const port = listener['portNumber'];
  const destinationPort = chain['destinationPort'];
  const filterName = str(filter['name']);
  return {
    applyTo: str(p['applyTo']) ?? '',
    operation: str(obj(p['patch'])['operation']) ?? '',
    ...(context !== undefined ? { context } : {}),
    ...(listenerName !== undefined ? { listenerName } : {}),
    ...(typeof port === 'number' ? { portNumber: port } : {}),
    ...(typeof destinationPort === 'number' ? { destinationPort } : {}),
    ...(filterName !== undefined ? { filterName } : {}),
  };
}

function targetRefOf(raw: unknown): PolicyTargetRef {
  const r = obj(raw);
  const out: { -readonly [K in keyof PolicyTargetRef]: PolicyTargetRef[K] } = {};
  for (const k of ['group', 'kind', 'name', 'namespace'] as const) {
    const v = str(r[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** spec.targetRefs, else the legacy spec.targetRef (policyattachment.go GetTargetRefs); undefined: none. */
function targetRefsOf(spec: Raw): PolicyTargetRef[] | undefined {
  const refs = spec['targetRefs'];
  if (Array.isArray(refs) && refs.length > 0) return refs.map(targetRefOf);
  return isPlainObject(spec['targetRef']) ? [targetRefOf(spec['targetRef'])] : undefined;
}

export function envoyFilterFacts(raw: unknown): EnvoyFilterFacts | undefined {
  const o = obj(raw);
  const md = obj(o['metadata']);
  const name = str(md['name']);
  if (name === undefined) return undefined;
  const source = stringMap(md['annotations'])[SOURCE_ANNOTATION];
  const spec = obj(o['spec']);
  const patches = spec['configPatches'];
  const priority = spec['priority'];
  const selector = spec['workloadSelector'];
  const targetRefs = targetRefsOf(spec);
  return {
    namespace: str(md['namespace']) ?? '',
    name,
    labels: stringMap(md['labels']),
    ...(source !== undefined ? { source } : {}),
    ...(typeof priority === 'number' ? { priority } : {}),
    ...(isPlainObject(selector) ? { workloadLabels: stringMap(selector['labels']) } : {}),
    ...(targetRefs !== undefined ? { targetRefs } : {}),
    patches: Array.isArray(patches) ? patches.map(patchFacts) : [],
  };
}
