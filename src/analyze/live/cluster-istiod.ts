/**
 * istiod's version, for `aeraki analyze` (AER0105): from the Deployments labelled `app=istiod` in the root
 * namespace, the one named `istiod` (the default revision) if present, else the first by name. Its version is the
 * tag of the image of its `discovery` container (`docker.io/istio/pilot:1.24.2` → `1.24.2`, `1.24.2-distroless`
 * → `1.24.2`): Istio's charts set it to the release. When the tag names no release (`latest`, a digest), the
 * label `operator.istio.io/version` (written by istioctl install and the operator) is used, then `istio.io/rev` when
 * it is spelled like a release (`1-24-2`); a revision named otherwise (`canary`) says nothing about the version.
 */
import { isPlainObject } from '../../util/json.ts';

interface DeploymentLike {
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: { template?: { spec?: { containers?: { name?: string; image?: string }[] } } };
}

/** `1.24.2` from `1.24.2-distroless`, `v1.24.2`, `1-24-2`; undefined when the text names no release. */
export function releaseOf(text: string | undefined, separator = '.'): string | undefined {
  if (text === undefined) return undefined;
  const sep = separator === '.' ? '\\.' : separator;
  const m = new RegExp(`^v?(\\d+)${sep}(\\d+)(?:${sep}(\\d+))?(?:$|[-+_.])`).exec(text);
  if (!m) return undefined;
  return [m[1], m[2], m[3]].filter((x) => x !== undefined).join('.');
}

function imageTag(image: string | undefined): string | undefined {
  if (image === undefined || image.includes('@')) return undefined;
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash ? image.slice(colon + 1) : undefined;
}

export function istiodVersionOf(deployments: readonly unknown[]): string | undefined {
  const list = deployments
    .filter(isPlainObject)
    .map((d) => d as DeploymentLike)
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const d = list.find((x) => x.metadata?.name === 'istiod') ?? list[0];
  if (!d) return undefined;
  const discovery = d.spec?.template?.spec?.containers?.find((c) => c.name === 'discovery');
  const labels = d.metadata?.labels ?? {};
  return (
    releaseOf(imageTag(discovery?.image)) ??
    releaseOf(labels['operator.istio.io/version']) ??
    releaseOf(labels['istio.io/rev'], '-')
  );
}
