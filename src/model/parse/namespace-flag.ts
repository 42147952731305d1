/**
 * `-n/--namespace` of render, validate and analyze, with kubectl's meaning: a namespaced object without
 * `metadata.namespace` takes the flag's namespace, and one whose namespace differs from it is refused (an error
 * naming the file and the object; the other objects go on). kubectl's RequireNamespace visitor, which `kubectl
 * apply -n X` runs: kubernetes/kubernetes v1.31.0, staging/src/k8s.io/cli-runtime/pkg/resource/visitor.go ("the
 * namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to
 * perform this operation."). Without the flag, objects without a namespace land in `default` (parse.ts).
 */
import { isPlainObject } from '../../util/json.ts';
import { issue, type ConfigIssue } from '../result.ts';
import { readKinds } from './parse.ts';

/**
 * Kinds that have no namespace (kubectl asks discovery; the files here are read offline): the cluster-scoped kinds
 * this controller reads, and the Kubernetes and Gateway API ones that appear beside them in manifests.
 */
const CLUSTER_SCOPED: ReadonlySet<string> = new Set([
  ...readKinds()
    .filter((k) => k.clusterScoped)
    .map((k) => k.kind),
  'Namespace',
  'GatewayClass',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'PriorityClass',
  'StorageClass',
  'PersistentVolume',
  'Node',
  'APIService',
]);

/**
 * `raw` as read under `-n namespace`: itself, a copy with `metadata.namespace` set, or undefined when it names
 * another namespace (then the issue, on `file`, is pushed to `issues`). Anything that is not an object with a
 * metadata object is left to the parser, which reports it.
 */
export function withNamespace(raw: unknown, namespace: string, file: string, issues: ConfigIssue[]): unknown {
  if (!isPlainObject(raw) || !isPlainObject(raw['metadata'])) return raw;
  const kind = raw['kind'];
  if (typeof kind !== 'string' || CLUSTER_SCOPED.has(kind)) return raw;
  const metadata = raw['metadata'];
  const own = metadata['namespace'];
  if (own === undefined || own === null || own === '') {
    return { ...raw, metadata: { ...metadata, namespace } };
  }
  if (own === namespace) return raw;
  const name = typeof metadata['name'] === 'string' ? metadata['name'] : '';
  const shown = typeof own === 'string' ? own : JSON.stringify(own);
  issues.push(
    issue(
      { kind: 'File', namespace: '', name: file },
      '',
      `${kind} ${shown}/${name}: the namespace from the provided object "${shown}" does not match the namespace "${namespace}" (-n); pass -n ${shown}, or leave metadata.namespace out`,
    ),
  );
  return undefined;
}
