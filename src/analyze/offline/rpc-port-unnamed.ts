/**
 * AER0002 WellKnownRpcPortUnnamed: Dubbo's port 20880 or Thrift's 9090 named plain `tcp` (or not named): the
 * service very probably speaks that protocol, yet the name selects none, so no protocol filter is generated. The
 * ports are those the plugins declare (ProtocolFacts.wellKnownPorts, `input.protocols`).
 */
import type { AnalysisCode, AnalysisInput, Analyzer } from '../types.ts';
import { handledProtocols, message, portsOf } from './shared.ts';
import { ORDERS_ENTRY_HEAD } from '../examples.ts';

export const WELL_KNOWN_RPC_PORT_UNNAMED: AnalysisCode = {
  code: 'AER0002',
  name: 'WellKnownRpcPortUnnamed',
  severity: 'warning',
  why: "The port has Dubbo's (20880) or Thrift's (9090) well-known number but is named plain `tcp` or not at all, so it is passed through as plain TCP.",
  fix: 'Name the port after its protocol (`tcp-dubbo`, `tcp-metaprotocol-dubbo`, `tcp-thrift`), or ignore this if it is not that protocol.',
  live: false,
  example: `${ORDERS_ENTRY_HEAD}  ports:
  - {number: 9090, name: tcp-thrift, protocol: TCP}
  - {number: 20880, name: tcp, protocol: TCP}
`,
};

/** Well-known port -> its protocol; the first plugin declaring a port wins. */
function wellKnownPorts(input: AnalysisInput): ReadonlyMap<number, string> {
  const out = new Map<number, string>();
  for (const f of input.protocols ?? []) {
    for (const port of f.wellKnownPorts ?? []) if (!out.has(port)) out.set(port, f.name);
  }
  return out;
}

export const wellKnownRpcPortAnalyzer: Analyzer = {
  codes: [WELL_KNOWN_RPC_PORT_UNNAMED],
  analyze: (input) => {
    const handled = handledProtocols(input);
    const wellKnown = wellKnownPorts(input);
    return portsOf(input).flatMap(({ ref, port, path }) => {
      const protocol = wellKnown.get(port.number);
      const name = port.name.toLowerCase();
      if (protocol === undefined || !handled.has(protocol) || (name !== '' && name !== 'tcp')) return [];
      const named = port.name === '' ? 'has no name' : `is named "${port.name}"`;
      const text =
        `port ${port.number} (${protocol}'s well-known port) ${named}, so its traffic stays plain TCP; ` +
        `name it "tcp-${protocol}" if it speaks ${protocol}`;
      return [message(WELL_KNOWN_RPC_PORT_UNNAMED, ref, path, text)];
    });
  },
};
