/**
 * DNS name rules of Istio's validation (istio.io/istio pkg/config/validation, labels.IsDNS1123Label), as Aeraki's
 * MetaRouter webhook applies them to hosts and subsets.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_LABEL = 63;
const MAX_FQDN = 255;

/** A DNS-1123 label: at most 63 characters of [a-z0-9-], starting and ending with [a-z0-9]. */
export function isDns1123Label(s: string): boolean {
  return s.length <= MAX_LABEL && DNS1123_LABEL.test(s);
}

/**
 * Why `name` is not a fully-qualified domain name as Istio's ValidateFQDN sees it, or undefined when it is one:
 * non-empty, at most 255 characters, every label DNS-1123, the last label not all digits; one trailing dot is
 * allowed (`istio.io.`). A single label (`catalog`, a short Kubernetes name) is valid.
 */
export function fqdnProblem(name: string): string | undefined {
  if (name === '') return 'empty domain name not allowed';
  if (name.length > MAX_FQDN) return `domain name ${JSON.stringify(name)} too long (max ${MAX_FQDN})`;
  const labels = name.split('.');
  const last = labels[labels.length - 1] ?? '';
  if (/^\d+$/.test(last)) {
    return `domain name ${JSON.stringify(name)} invalid (top level domain ${JSON.stringify(last)} cannot be all-numeric)`;
  }
  for (const [i, label] of labels.entries()) {
    if (i === labels.length - 1 && label === '' && i > 0) return undefined;
    if (!isDns1123Label(label)) {
      return `domain name ${JSON.stringify(name)} invalid (label ${JSON.stringify(label)} is not a DNS-1123 label)`;
    }
  }
  return undefined;
}
