/**
 * Listen addresses written `host:port`: `0.0.0.0:8080`, `127.0.0.1:0`, `localhost:8080`, `[::1]:8080`, or
 * `:8080` (every interface). Port 0 asks the OS for a free port. Bad input is a message, never an exception.
 */
export interface ListenAddress {
  /** Host without brackets; `''` for every interface. */
  readonly host: string;
  readonly port: number;
}

export type ParsedAddress =
  { readonly ok: true; readonly value: ListenAddress } | { readonly ok: false; readonly message: string };

const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

export function parseListenAddress(text: string): ParsedAddress {
  const bad = (why: string): ParsedAddress => ({
    ok: false,
    message: `invalid address ${JSON.stringify(text)}: ${why} (expected host:port, e.g. 0.0.0.0:8080 or [::1]:8080)`,
  });
  let host: string;
  let portText: string;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0 || text[end + 1] !== ':') return bad('an IPv6 host must be written [addr]:port');
    host = text.slice(1, end);
    portText = text.slice(end + 2);
    if (!host.includes(':')) return bad('brackets are only for IPv6 addresses');
  } else {
    const colon = text.lastIndexOf(':');
    if (colon < 0) return bad('missing port');
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
    if (host.includes(':')) return bad('an IPv6 host must be written [addr]:port');
    if (host !== '' && !HOSTNAME.test(host)) return bad('bad host');
  }
  if (!/^\d{1,5}$/.test(portText)) return bad('the port must be a number from 0 to 65535');
  const port = Number(portText);
  if (port > 65535) return bad('the port must be a number from 0 to 65535');
  return { ok: true, value: { host, port } };
}

/** `host:port` for logs and URLs (IPv6 in brackets). */
export function formatAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
