/** The peer's identity from its certificate: the SPIFFE URI SAN if any, else the subject CN. */
export function peerIdentity(
  cert: { subject?: { CN?: string | string[] }; subjectaltname?: string } | undefined,
): string {
  if (!cert) return 'unauthenticated';
  const uri = (cert.subjectaltname ?? '')
    .split(',')
    .map((s) => s.trim())
    .find((s) => s.startsWith('URI:spiffe://'));
  if (uri) return uri.slice('URI:'.length);
  const cn = cert.subject?.CN;
  return (Array.isArray(cn) ? cn[0] : cn) ?? 'unknown';
}
