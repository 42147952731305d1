/**
 * Protocol detection from port names (Aeraki model/protocol/instance.go and metaprotocol/application_protocol.go):
 * the second `-` segment, lower-cased, names the L7 protocol; for MetaProtocol the third segment, case kept, is
 * the application protocol. The first segment is ignored; further segments are ignored.
 */

export const PROTOCOLS = [
  'dubbo',
  'thrift',
  'mongo',
  'redis',
  'mysql',
  'kafka',
  'zookeeper',
  'metaprotocol',
] as const;
export type Protocol = (typeof PROTOCOLS)[number];

const KNOWN: ReadonlySet<string> = new Set(PROTOCOLS);

/** The L7 protocol a port name selects, or undefined when the name selects none. */
export function detectProtocol(portName: string): Protocol | undefined {
  const segments = portName.split('-');
  if (segments.length < 2) return undefined;
  const second = (segments[1] ?? '').toLowerCase();
  return KNOWN.has(second) ? (second as Protocol) : undefined;
}

export type AppProtocolResult = { ok: true; appProtocol: string } | { ok: false; message: string };

/**
 * The application protocol of a MetaProtocol port name (`tcp-metaprotocol-dubbo-v2` -> `dubbo`). A missing or
 * empty third segment is an input error (deviation D1; Aeraki panics on `tcp-metaprotocol`).
 */
export function applicationProtocolOf(portName: string): AppProtocolResult {
  const third = portName.split('-')[2];
  if (third === undefined) {
    return {
      ok: false,
      message: `port name "${portName}" has no application protocol segment (tcp-metaprotocol-<protocol>)`,
    };
  }
  if (third === '') {
    return { ok: false, message: `port name "${portName}" has an empty application protocol segment` };
  }
  return { ok: true, appProtocol: third };
}
