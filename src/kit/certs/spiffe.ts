/**
 * A TLS `checkServerIdentity` that verifies a server by its SPIFFE URI SAN instead of its host name, as Envoy
 * does with Istio-issued certificates (they carry only `spiffe://<trust domain>/ns/<ns>/sa/<sa>`).
 */
export function spiffeServerCheck(
  id: string,
): (host: string, cert: { subjectaltname?: string }) => Error | undefined {
  return (_host, cert) =>
    (cert.subjectaltname ?? '').split(', ').includes(`URI:${id}`)
      ? undefined
      : new Error(`the server certificate is not for ${id} (${cert.subjectaltname ?? 'no SAN'})`);
}
