/**
 * Who may read from a mesh-facing gRPC server (RDS routes, the registry's MCP server): a client's certificate
 * (already verified against the mesh root by TLS) must carry exactly one SPIFFE URI SAN `spiffe://<trust
 * domain>/...` in the mesh trust domain or one of its aliases; when namespaces are listed, it must have the Istio
 * form `spiffe://<td>/ns/<namespace>/sa/<service account>` with one of them
 * (https://istio.io/latest/docs/reference/config/security/conditions/#supported-conditions); when identities are
 * listed, it must be one of them (an alias trust domain counts as the trust domain, as Istio's authorization does).
 */

/** Why a certificate was refused (a `reason` label value). */
export type PeerRefusal = 'no_certificate' | 'no_spiffe_id' | 'trust_domain' | 'namespace' | 'identity';

export interface PeerPolicy {
  /** The mesh trust domain, e.g. `cluster.local`. */
  readonly trustDomain: string;
  /** Other trust domains accepted as the mesh's (Istio's `trustDomainAliases`). */
  readonly trustDomainAliases: readonly string[];
  /** Namespaces whose workloads may connect; empty = every namespace. */
  readonly allowedNamespaces: readonly string[];
  /** SPIFFE ids that may connect (`spiffe://<trust domain>/ns/<ns>/sa/<sa>`); empty or absent = any. */
  readonly allowedIdentities?: readonly string[];
}

/** The subset of node's `tls.PeerCertificate` the check reads. */
export interface PeerCertificateLike {
  readonly subjectaltname?: string;
  readonly serialNumber?: string;
}

export type PeerVerdict =
  | { readonly ok: true; readonly identity: string }
  | {
      readonly ok: false;
      readonly reason: PeerRefusal;
      /** The SPIFFE id, or `serial:<hex>` when the certificate has none: what the refusal is logged once for. */
      readonly identity: string;
      readonly message: string;
    };

const SPIFFE = 'spiffe://';
const ISTIO_PATH = /^\/ns\/([^/]+)\/sa\/([^/]+)$/;

function uriSans(cert: PeerCertificateLike): string[] {
  return (cert.subjectaltname ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('URI:'))
    .map((s) => s.slice('URI:'.length).replace(/^"(.*)"$/, '$1'));
}

/** Checks a verified client certificate against the policy (undefined: no certificate presented). */
export function checkPeer(cert: PeerCertificateLike | undefined, policy: PeerPolicy): PeerVerdict {
  if (!cert || Object.keys(cert).length === 0) {
    return { ok: false, reason: 'no_certificate', identity: 'none', message: 'no client certificate' };
  }
  const serial = `serial:${(cert.serialNumber ?? 'unknown').toLowerCase()}`;
  const spiffe = uriSans(cert).filter((u) => u.toLowerCase().startsWith(SPIFFE));
  if (spiffe.length !== 1) {
    const message =
      spiffe.length === 0
        ? 'the client certificate has no SPIFFE URI SAN'
        : `the client certificate has ${spiffe.length} SPIFFE URI SANs; exactly one is allowed`;
    return { ok: false, reason: 'no_spiffe_id', identity: serial, message };
  }
  const id = spiffe[0]!;
  const rest = id.slice(SPIFFE.length);
  const slash = rest.indexOf('/');
  const domain = (slash < 0 ? rest : rest.slice(0, slash)).toLowerCase();
  const path = slash < 0 ? '' : rest.slice(slash);
  const domains = [policy.trustDomain, ...policy.trustDomainAliases].map((d) => d.toLowerCase());
  if (!domains.includes(domain)) {
    const message = `trust domain "${domain}" is not the mesh's (${domains.join(', ')})`;
    return { ok: false, reason: 'trust_domain', identity: id, message };
  }
  if (policy.allowedNamespaces.length > 0) {
    const ns = ISTIO_PATH.exec(path)?.[1];
    if (ns === undefined || !policy.allowedNamespaces.includes(ns)) {
      const message =
        ns === undefined
          ? `"${id}" is not of the form spiffe://<trust domain>/ns/<namespace>/sa/<service account>`
          : `namespace "${ns}" may not read routes (allowed: ${policy.allowedNamespaces.join(', ')})`;
      return { ok: false, reason: 'namespace', identity: id, message };
    }
  }
  const identities = policy.allowedIdentities ?? [];
  if (identities.length > 0) {
    const canonical = `${SPIFFE}${policy.trustDomain.toLowerCase()}${path}`;
    const allowed = identities.some((a) => a === id || a.toLowerCase() === canonical.toLowerCase());
    if (!allowed) {
      const message = `"${id}" may not read (allowed: ${identities.join(', ')})`;
      return { ok: false, reason: 'identity', identity: id, message };
    }
  }
  return { ok: true, identity: id };
}
