/**
 * Listen addresses written `host:port`: `0.0.0.0:8080`, `127.0.0.1:0`, `localhost:8080`, `[::1]:8080`, or
 * `:8080` (every interface). Port 0 asks the OS for a free port. Parsed once, where the text comes in (a flag
 * or a variable in cmd/); everything after takes the parsed ListenAddress.
 */
export interface ListenAddress {
  /** Host without brackets; `''` for every interface. */
  readonly host: string;
  readonly port: number;
}

/** A listen address that does not parse; the message names the text and says what is expected. */
export class AddressError extends Error {}

const HOSTNAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/** Parses `host:port`; throws AddressError on bad input. */
export function parseListenAddress(text: string): ListenAddress {
  const bad = (why: string) =>
    new AddressError(
      `invalid address ${JSON.stringify(text)}: ${why} (expected host:port, e.g. 0.0.0.0:8080 or [::1]:8080)`,
    );
  let host: string;
  let portText: string;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0 || text[end + 1] !== ':') throw bad('an IPv6 host must be written [addr]:port');
    host = text.slice(1, end);
    portText = text.slice(end + 2);
    if (!host.includes(':')) throw bad('brackets are only for IPv6 addresses');
  } else {
    const colon = text.lastIndexOf(':');
    if (colon < 0) throw bad('missing port');
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
    if (host.includes(':')) throw bad('an IPv6 host must be written [addr]:port');
    if (host !== '' && !HOSTNAME.test(host)) throw bad('bad host');
  }
  if (!/^\d{1,5}$/.test(portText)) throw bad('the port must be a number from 0 to 65535');
  const port = Number(portText);
  if (port > 65535) throw bad('the port must be a number from 0 to 65535');
  return { host, port };
}

/** `host:port` for logs and URLs (IPv6 in brackets). */
export function formatAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
