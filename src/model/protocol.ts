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
  const second = segment(portName, 1);
  if (second === undefined) return undefined;
  const lower = second.toLowerCase();
  return KNOWN.has(lower) ? (lower as Protocol) : undefined;
}

/**
 * `portName.split('-')[index]` without building the array (this runs for every port of every service on every
 * rebuild): the text between the index-th and the next `-`, or undefined when there are not that many `-`.
 */
function segment(portName: string, index: number): string | undefined {
  let start = 0;
  for (let i = 0; i < index; i++) {
    const dash = portName.indexOf('-', start);
    if (dash < 0) return undefined;
    start = dash + 1;
  }
  const end = portName.indexOf('-', start);
  return portName.slice(start, end < 0 ? portName.length : end);
}

export type AppProtocolResult = { ok: true; appProtocol: string } | { ok: false; message: string };

/**
 * The application protocol of a MetaProtocol port name (`tcp-metaprotocol-dubbo-v2` -> `dubbo`). A missing or
 * empty third segment is an input error (deviation D1; Aeraki panics on `tcp-metaprotocol`).
 */
export function applicationProtocolOf(portName: string): AppProtocolResult {
  const third = segment(portName, 2);
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
