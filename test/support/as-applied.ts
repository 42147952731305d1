// Aeraki's demo folders (../shared/aeraki-demos/) as a cluster would hold them after the demo's install script ran
// (that folder's README, "as applied"): objects without a namespace get the namespace named in the folder's
// SOURCE, `${ISTIO_NAMESPACE}` becomes istio-system (envsubst, as Aeraki's scripts do), and every Service without
// a clusterIP (and not ExternalName) gets one from 10.96.0.0/16 as the API server would allocate it.
// ServiceEntries stay address-less.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listConfigFiles, parseDocuments } from '../../src/controller/file-source.ts';
import type { ConfigIssue } from '../../src/model/result.ts';

export type RawObject = Record<string, any>;

/** The namespace the demo's install script applies the folder to (`namespace:` line of SOURCE). */
export function sourceNamespace(dir: string): string {
  const m = /^namespace:\s*(\S+)\s*$/m.exec(readFileSync(join(dir, 'SOURCE'), 'utf8'));
  if (!m?.[1]) throw new Error(`${dir}/SOURCE names no namespace`);
  return m[1];
}

/** Every object of the folder's YAML files as written, `kind: List` items flattened, in file order. */
export function readFolder(dir: string): RawObject[] {
  const issues: ConfigIssue[] = [];
  const out: RawObject[] = [];
  const add = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return;
    const o = v as RawObject;
    if (typeof o.kind === 'string' && o.kind.endsWith('List')) for (const i of o.items ?? []) add(i);
    else out.push(o);
  };
  for (const file of listConfigFiles([dir], issues)) {
    for (const doc of parseDocuments(file, readFileSync(file, 'utf8'), issues)) add(doc);
  }
  if (issues.length > 0) throw new Error(`cannot read ${dir}: ${issues.map((i) => i.message).join('; ')}`);
  return out;
}

const CLUSTER_SCOPED: ReadonlySet<string> = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'ApplicationProtocol',
]);

/**
 * A deep copy of `objects` as applied with `kubectl apply -n <namespace>` and admitted by the API server. Cluster
 * IPs are allocated in order from 10.96.0.10, one per Service (the same Service defined twice keeps its address).
 */
export function asApplied(objects: readonly RawObject[], namespace: string): RawObject[] {
  const text = JSON.stringify(objects).replaceAll('${ISTIO_NAMESPACE}', 'istio-system');
  const copy = JSON.parse(text) as RawObject[];
  const allocated = new Map<string, string>();
  for (const o of copy) {
    o.metadata ??= {};
    if (!CLUSTER_SCOPED.has(o.kind) && !o.metadata.namespace) o.metadata.namespace = namespace;
    if (o.apiVersion !== 'v1' || o.kind !== 'Service') continue;
    o.spec ??= {};
    if (o.spec.type === 'ExternalName' || o.spec.clusterIP) continue;
    const key = `${o.metadata.namespace}/${o.metadata.name}`;
    let ip = allocated.get(key);
    if (ip === undefined) {
      const n = 10 + allocated.size;
      ip = `10.96.${Math.floor(n / 256)}.${n % 256}`;
      allocated.set(key, ip);
    }
    o.spec.clusterIP = ip;
  }
  return copy;
}
