/**
 * Protocol detection from port names (Aeraki model/protocol/instance.go and metaprotocol/application_protocol.go):
 * the second `-` segment, lower-cased, names the L7 protocol; for MetaProtocol the third segment, case kept, is
 * the application protocol. The first segment is ignored; further segments are ignored.
 */
import { fail, issue, ok, type ObjectRef, type Result } from './result.ts';

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
  const second = portName.split('-')[1];
  if (second === undefined) return undefined;
  const lower = second.toLowerCase();
  return KNOWN.has(lower) ? (lower as Protocol) : undefined;
}

/**
 * The application protocol of a MetaProtocol port name (`tcp-metaprotocol-dubbo-v2` -> `dubbo`). A missing or
 * empty third segment is an input error (deviation D1; Aeraki panics on `tcp-metaprotocol`), reported on `ref`
 * at `path` (the port name's field).
 */
export function applicationProtocolOf(portName: string, ref: ObjectRef, path: string): Result<string> {
  const third = portName.split('-')[2];
  if (third === undefined) {
    return fail([
      issue(
        ref,
        path,
        `port name "${portName}" has no application protocol segment (tcp-metaprotocol-<protocol>)`,
      ),
    ]);
  }
  if (third === '') {
    return fail([issue(ref, path, `port name "${portName}" has an empty application protocol segment`)]);
  }
  return ok(third);
}

/**
 * The second segment of a `tcp-<segment>` port name (first segment `tcp` in any case) when it names no known
 * protocol (`tcp-web`, `tcp-Postgres`, `tcp-`), else undefined. Aeraki passes such ports by silently; users who
 * name a port `tcp-<protocol>` usually expect that protocol to be handled, so the caller warns. Names of other
 * Istio protocols (`http-...`, `grpc`) and a bare `tcp` give undefined.
 */
export function unknownTcpSegment(portName: string): string | undefined {
  const [first, second] = portName.split('-');
  if (first?.toLowerCase() !== 'tcp' || second === undefined) return undefined;
  return KNOWN.has(second.toLowerCase()) ? undefined : second;
}
