/**
 * AER0001 PortNameNearMiss: a port whose name selects no protocol but almost names one this controller handles
 * (`dubbo-tcp`, `tcp_dubbo`, `tcpdubbo`, `tcp-thirft`): Istio and this controller detect the protocol from the
 * second `-` segment only (model/protocol.ts), so its traffic stays plain TCP. A name the controller refuses
 * (`tcp-metaprotocol` without an application) is an error of its own (AER0010), not a near miss.
 */
import { protocolSegment } from '../../model/protocol.ts';
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer } from '../types.ts';
import { admissionOnly } from '../../model/result.ts';
import { controllerSeverity, handledProtocols, message, perInput, portsOf, sameSpot } from './shared.ts';
import { ORDERS_ENTRY_HEAD } from '../examples.ts';

export const PORT_NAME_NEAR_MISS: AnalysisCode = {
  code: 'AER0001',
  name: 'PortNameNearMiss',
  severity: 'warning',
  why: 'The port name almost names a protocol this controller handles, but only `<anything>-<protocol>` selects one, so its traffic stays plain TCP.',
  fix: 'Rename the port `tcp-<protocol>` (`tcp-dubbo`, `tcp-thrift`, `tcp-metaprotocol-<application>`).',
  live: false,
  example: `${ORDERS_ENTRY_HEAD}  ports:
  - {number: 9090, name: tcp-thrift, protocol: TCP}
  - {number: 20880, name: dubbo-tcp, protocol: TCP}
`,
};

/**
 * Restricted Damerau-Levenshtein distance (insertions, deletions, substitutions, adjacent transpositions), so
 * `thirft` is one edit from `thrift`.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) (d[0] as number[])[j] = j;
  const at = (i: number, j: number): number => (d[i] as number[])[j] as number;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = v;
    }
  }
  return at(a.length, b.length);
}

/**
 * The handled protocol `name` almost names, or undefined (a name that selects one of `detected` is no near
 * miss).
 */
export function nearMissProtocol(
  name: string,
  handled: ReadonlySet<string>,
  detected: ReadonlySet<string>,
): string | undefined {
  if (name === '' || detected.has(protocolSegment(name) ?? '')) return undefined;
  const lower = name.toLowerCase();
  const protocols = [...handled].sort((a, b) => b.length - a.length);
  // In the wrong segment, or misspelt by one edit (two for names of eight letters or more): `dubbo-tcp`, `tcp_dubbo`, `tcp-thirft`,
  // `tcp-metaprotocl-dubbo`.
  for (const token of lower.split(/[-_.]/)) {
    const near = protocols.find((p) => {
      const max = p.length >= 8 ? 2 : 1;
      return Math.abs(token.length - p.length) <= max && editDistance(token, p) <= max;
    });
    if (near !== undefined) return near;
  }
  // Glued to another word: `tcpdubbo`, `dubbo20880`.
  return protocols.find((p) => lower.includes(p));
}

function suggestion(protocol: string): string {
  return protocol === 'metaprotocol' ? 'tcp-metaprotocol-<application>' : `tcp-${protocol}`;
}

const findings = perInput((input: AnalysisInput): AnalysisMessage[] => {
  const handled = handledProtocols(input);
  const detected = new Set(input.detectedProtocols);
  return portsOf(input).flatMap(({ ref, port, path }) => {
    const protocol = nearMissProtocol(port.name, handled, detected);
    if (protocol === undefined) return [];
    const text =
      `port "${port.name}" selects no protocol but looks like ${protocol}: only the second "-" segment ` +
      `names one, so its traffic stays plain TCP; name it "${suggestion(protocol)}" if ${protocol} was meant`;
    return [message(PORT_NAME_NEAR_MISS, ref, path, text)];
  });
});

export const portNameNearMissAnalyzer: Analyzer = {
  codes: [PORT_NAME_NEAR_MISS],
  analyze: findings,
  // The generic `tcp-<segment>` warning of the same port says less; any other issue there is reported as well.
  covers: (issue, input) =>
    controllerSeverity(issue, 'warning') &&
    !admissionOnly(issue) &&
    issue.rule === 'port-unknown-segment' && // envoyfilter/generate-all.ts unhandledPortsOf
    findings(input).some((m) => sameSpot({ ref: issue.ref, path: issue.path }, m.ref, m.path ?? '')),
};
