/**
 * DNS name rules of Istio's validation (istio.io/istio pkg/config/validation, labels.IsDNS1123Label), as Aeraki's
 * MetaRouter webhook applies them to hosts and subsets.
 */

const MAX_LABEL = 63;
const MAX_FQDN = 255;

/**
 * True when `s` from `start` to `end` is a DNS-1123 label: 1 to 63 of [a-z0-9-], not starting or ending with "-";
 * with `ignoreCase`, [A-Z] too.
 */
function isLabelAt(s: string, start: number, end: number, ignoreCase = false): boolean {
  if (end - start < 1 || end - start > MAX_LABEL) return false;
  for (let i = start; i < end; i++) {
    const ch = s.charCodeAt(i);
    const alnum =
      (ch >= 0x61 && ch <= 0x7a) || (ch >= 0x30 && ch <= 0x39) || (ignoreCase && ch >= 0x41 && ch <= 0x5a);
    if (!alnum && (ch !== 0x2d || i === start || i === end - 1)) return false;
  }
  return true;
}

/** True when `s` from `start` to its end is one or more digits. */
function isDigitsFrom(s: string, start: number): boolean {
  if (start >= s.length) return false;
  for (let i = start; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    if (ch < 0x30 || ch > 0x39) return false;
  }
  return true;
}

/** A DNS-1123 label: at most 63 characters of [a-z0-9-], starting and ending with [a-z0-9]. */
export function isDns1123Label(s: string): boolean {
  return isLabelAt(s, 0, s.length);
}

/**
 * Why `name` is not a fully-qualified domain name as Istio's ValidateFQDN sees it, or undefined when it is one:
 * non-empty, at most 255 characters, every label DNS-1123, the last label not all digits; one trailing dot is
 * allowed (`istio.io.`). A single label (`catalog`, a short Kubernetes name) is valid. One pass over the labels,
 * no copies unless there is a problem to name. With `ignoreCase`, upper-case letters are allowed (DNS names are
 * case-insensitive, and Istio accepts them in the hosts of its own kinds).
 */
export function fqdnProblem(name: string, ignoreCase = false): string | undefined {
  if (name === '') return 'empty domain name not allowed';
  if (name.length > MAX_FQDN) return `domain name ${JSON.stringify(name)} too long (max ${MAX_FQDN})`;
  const lastStart = name.lastIndexOf('.') + 1;
  if (isDigitsFrom(name, lastStart)) {
    const last = name.slice(lastStart);
    return `domain name ${JSON.stringify(name)} invalid (top level domain ${JSON.stringify(last)} cannot be all-numeric)`;
  }
  for (let start = 0; ;) {
    const dot = name.indexOf('.', start);
    if (dot < 0 && start === name.length && start > 0) return undefined; // the trailing dot
    const end = dot < 0 ? name.length : dot;
    if (!isLabelAt(name, start, end, ignoreCase)) {
      const label = name.slice(start, end);
      return `domain name ${JSON.stringify(name)} invalid (label ${JSON.stringify(label)} is not a DNS-1123 label)`;
    }
    if (dot < 0) return undefined;
    start = dot + 1;
  }
}

/**
 * Why `host` is not a wildcard domain as Istio's ValidateWildcardDomain sees it, or undefined: `*` alone, or an
 * optional `*.` before an FQDN (fqdnProblem, upper case allowed); a `*` anywhere else is invalid.
 */
export function wildcardDomainProblem(host: string): string | undefined {
  if (host === '*') return undefined;
  const name = host.startsWith('*.') ? host.slice(2) : host;
  if (name.includes('*')) {
    return `domain name ${JSON.stringify(host)} invalid ("*" is allowed only alone or as the first label)`;
  }
  return fqdnProblem(name, true);
}
