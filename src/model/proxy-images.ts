/**
 * The proxy images `aeraki analyze` knows to carry the filters this controller writes, and how an image is
 * compared with them: by repository (registry and path), ignoring the tag and the digest, with Docker Hub's
 * implicit names spelled out (`aeraki/x` = `docker.io/aeraki/x`, `envoy` = `docker.io/library/envoy`).
 */

/**
 * The MetaProtocol proxy images Aeraki documents: `ghcr.io/aeraki-mesh/meta-protocol-proxy` (its install docs and
 * e2e manifests, `sidecar.istio.io/proxyImage: ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2`) and its `-debug`
 * build (meta-protocol-proxy's release script), and the Docker Hub names of releases before the move to ghcr.io
 * (`aeraki/meta-protocol-proxy`, `-debug` and `-distroless`, as in Aeraki's 1.0 samples).
 */
export const DEFAULT_META_PROTOCOL_IMAGES: readonly string[] = Object.freeze([
  'ghcr.io/aeraki-mesh/meta-protocol-proxy',
  'ghcr.io/aeraki-mesh/meta-protocol-proxy-debug',
  'docker.io/aeraki/meta-protocol-proxy',
  'docker.io/aeraki/meta-protocol-proxy-debug',
  'docker.io/aeraki/meta-protocol-proxy-distroless',
]);

/**
 * Envoy builds with contrib extensions (kafka_broker, ...): Envoy's own contrib image, the one README names. Neither
 * istio-proxy nor the MetaProtocol proxy builds them; a mesh running its own build names it with the flag.
 */
export const DEFAULT_CONTRIB_IMAGES: readonly string[] = Object.freeze([
  'docker.io/envoyproxy/envoy-contrib',
]);

/** `registry/path` of an image reference, without tag or digest, Docker Hub's implicit parts made explicit. */
export function imageRepository(image: string): string {
  let ref = image.trim();
  const at = ref.indexOf('@');
  if (at >= 0) ref = ref.slice(0, at);
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  if (colon > slash) ref = ref.slice(0, colon);
  const parts = ref.split('/');
  const first = parts[0] ?? '';
  const hasRegistry =
    parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (!hasRegistry) return parts.length === 1 ? `docker.io/library/${ref}` : `docker.io/${ref}`;
  if (first === 'index.docker.io' || first === 'registry-1.docker.io') {
    return ['docker.io', ...parts.slice(1)].join('/');
  }
  return ref;
}

/** Whether `image` is one of `known` (each a repository, with or without tag), compared by repository. */
export function isKnownImage(image: string, known: readonly string[]): boolean {
  const repo = imageRepository(image);
  return known.some((k) => imageRepository(k) === repo);
}
