/**
 * AER0106 OrphanedEnvoyFilter: an EnvoyFilter in the cluster labelled `manager: Aeraki` that nothing in
 * AnalysisInput.generated produces (by namespace/name): left behind by a deleted service, another replica's
 * configuration, or an old release's naming. A running controller deletes it only while it owns the namespace.
 * Not reported: a filter whose source object is rejected or fails generation (the controller keeps the output of
 * a failed source: DESIGN habit 3). With `-n`, cluster-read.ts leaves out this controller's filters for
 * sources of other namespaces (their objects were not read).
 */
import { MANAGER_LABEL, MANAGER_VALUE } from '../../model/constants.ts';
import type { ObjectRef } from '../../model/result.ts';
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer } from '../types.ts';

export const ORPHANED_ENVOY_FILTER: AnalysisCode = {
  code: 'AER0106',
  name: 'OrphanedEnvoyFilter',
  severity: 'warning',
  why: 'An EnvoyFilter labelled manager: Aeraki that nothing produces any more still patches proxies.',
  fix: 'Delete it (kubectl delete envoyfilter -n NS NAME) once you know no other controller replica writes it.',
  live: true,
  example: `# No objects needed.
# In the cluster: EnvoyFilter istio-system/aeraki-outbound-orders.shop.svc.cluster.local-240.240.0.10-20880,
# labelled manager=Aeraki, annotated aeraki.io/source=ServiceEntry/shop/orders, while ServiceEntry shop/orders
# no longer exists.`,
};

/** `ServiceEntry/<ns>/<name>` → its ref; undefined for anything else. */
function sourceRef(source: string | undefined): ObjectRef | undefined {
  const parts = source?.split('/');
  if (parts?.length !== 3) return undefined;
  const [kind = '', namespace = '', name = ''] = parts;
  return { kind, namespace, name };
}

const refKey = (r: ObjectRef) => `${r.kind}/${r.namespace}/${r.name}`;

function analyze(input: AnalysisInput): AnalysisMessage[] {
  const cluster = input.cluster;
  if (!cluster) return [];
  const generated = new Set(input.generated.map((f) => `${f.namespace}/${f.name}`));
  const failed = new Set([
    ...input.objects.rejected.map((r) => refKey(r.ref)),
    ...input.issues.filter((i) => (i.severity ?? 'error') === 'error').map((i) => refKey(i.ref)),
  ]);
  const out: AnalysisMessage[] = [];
  for (const f of cluster.envoyFilters) {
    if (f.labels[MANAGER_LABEL] !== MANAGER_VALUE || generated.has(`${f.namespace}/${f.name}`)) continue;
    const source = sourceRef(f.source);
    if (source && failed.has(refKey(source))) continue;
    out.push({
      code: ORPHANED_ENVOY_FILTER,
      ref: { kind: 'EnvoyFilter', namespace: f.namespace, name: f.name },
      message: source
        ? `labelled ${MANAGER_LABEL}=${MANAGER_VALUE} for ${source.kind} ${source.namespace}/${source.name}, which produces no such EnvoyFilter now`
        : `labelled ${MANAGER_LABEL}=${MANAGER_VALUE} without an aeraki.io/source annotation, and nothing produces it`,
    });
  }
  return out;
}

export const orphanedAnalyzer: Analyzer = { codes: [ORPHANED_ENVOY_FILTER], analyze };
