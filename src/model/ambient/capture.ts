/**
 * Which pods ztunnel captures, with istio-cni's default enablement selectors (istio/istio release-1.30 @b9a2bbd2
 * manifests/charts/istio-cni/values.yaml:59-66 and cni/pkg/util/enablement_selector.go Matches :81; master the
 * same): a pod labelled `istio.io/dataplane-mode: ambient`, or a pod not labelled `istio.io/dataplane-mode: none` in
 * a namespace labelled `istio.io/dataplane-mode: ambient`; never a host-network pod or one with a sidecar
 * (annotation `sidecar.istio.io/status`). The selectors are install values; these are the defaults.
 */
import { DATAPLANE_MODE_AMBIENT, DATAPLANE_MODE_LABEL, DATAPLANE_MODE_NONE } from './labels.ts';

export interface AmbientPod {
  readonly labels: Readonly<Record<string, string>>;
  /** The pod has the `sidecar.istio.io/status` annotation (injected). */
  readonly hasSidecar: boolean;
  readonly hostNetwork: boolean;
}

export function capturedByAmbient(
  pod: AmbientPod,
  namespaceLabels: Readonly<Record<string, string>>,
): boolean {
  if (pod.hostNetwork || pod.hasSidecar) return false;
  const mode = pod.labels[DATAPLANE_MODE_LABEL];
  if (mode === DATAPLANE_MODE_AMBIENT) return true;
  return mode !== DATAPLANE_MODE_NONE && namespaceLabels[DATAPLANE_MODE_LABEL] === DATAPLANE_MODE_AMBIENT;
}
