/**
 * Protocol detection from port names (Aeraki model/protocol/instance.go and metaprotocol/application_protocol.go):
 * the second `-` segment, lower-cased, names the L7 protocol; for MetaProtocol the third segment, case kept, is
 * the application protocol. The first segment is ignored; further segments are ignored.
 *
 * Which names select a protocol is not written here: each plugin declares its own (Generator.protocols), and the
 * plugin registry (plugins/registry.ts createProtocolNames) adds the ones Aeraki recognises with no plugin. The
 * functions that need the whole set take it as a ProtocolNames; a check for one name needs no set.
 */
import { fail, issue, ok, type ObjectRef, type Result } from './result.ts';

/**
 * A detection name: what the second `-` segment of a port name is, lower-cased, when it selects a protocol
 * (`dubbo` in `tcp-Dubbo`). Lower case by type: a lower-case literal is one, a string read from input is not
 * until a ProtocolNames detects it.
 */
export type Protocol = Lowercase<string>;

/** The second `-` segment of a port name, lower-cased (`tcp-Dubbo-x` -> `dubbo`): the name it asks for, if any. */
export function protocolSegment(portName: string): Protocol | undefined {
  const second = portName.split('-')[1];
  return second === undefined ? undefined : (second.toLowerCase() as Protocol);
}

/** True when `portName` selects `protocol` (its second segment, lower-cased, is that name). */
export function selectsProtocol(portName: string, protocol: Protocol): boolean {
  return protocolSegment(portName) === protocol;
}

/** The names port names select protocols by, with detection over them (plain functions: no `this`). */
export interface ProtocolNames {
  /** The names, each once, in the order given. */
  readonly names: readonly Protocol[];
  /** The protocol a port name selects, or undefined when the name selects none. */
  readonly detect: (portName: string) => Protocol | undefined;
  /**
   * The second segment of a `tcp-<segment>` port name (first segment `tcp` in any case) when it names no protocol
   * (`tcp-web`, `tcp-Postgres`, `tcp-`), else undefined. Aeraki passes such ports by silently; users who name a
   * port `tcp-<protocol>` usually expect that protocol to be handled, so the caller warns. Names of other Istio
   * protocols (`http-...`, `grpc`) and a bare `tcp` give undefined.
   */
  readonly unknownTcpSegment: (portName: string) => string | undefined;
}

/**
 * Detection over `names` (repeats kept once). A name no port name could select (empty, upper case, or holding a
 * `-`) is a bug in a declaration: it throws.
 */
export function protocolNames(names: Iterable<Protocol>): ProtocolNames {
  const known = new Set<Protocol>();
  for (const name of names) {
    if (name === '' || name.includes('-') || name !== name.toLowerCase()) {
      throw new Error(`protocol name "${name}" cannot be a port name's second segment`);
    }
    known.add(name);
  }
  return {
    names: Object.freeze([...known]),
    detect: (portName) => {
      const segment = protocolSegment(portName);
      return segment !== undefined && known.has(segment) ? segment : undefined;
    },
    unknownTcpSegment: (portName) => {
      const [first, second] = portName.split('-');
      if (first?.toLowerCase() !== 'tcp' || second === undefined) return undefined;
      return known.has(second.toLowerCase() as Protocol) ? undefined : second;
    },
  };
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
