/**
 * AER0012 NoHandledPorts (info): services were read, but no port of any ServiceEntry, Service or Gateway selects
 * a protocol this controller handles, so it generates nothing for them: often a sign of port names written
 * another way (`dubbo`, `grpc-dubbo`) or of the wrong files.
 */
import { protocolSegment } from '../../model/protocol.ts';
import type { AnalysisCode, Analyzer } from '../types.ts';
import { handledProtocols, servicesOf } from './shared.ts';

export const NO_HANDLED_PORTS: AnalysisCode = {
  code: 'AER0012',
  name: 'NoHandledPorts',
  severity: 'info',
  why: 'No port of the services read selects a protocol this controller handles, so it generates nothing for them.',
  fix: 'Name the RPC ports `tcp-<protocol>` (`tcp-dubbo`, `tcp-thrift`, `tcp-metaprotocol-<application>`), or check that the right files were given.',
  live: false,
  example: `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: web, namespace: shop}
spec:
  hosts: [web.shop.svc.cluster.local]
  addresses: [240.240.0.12]
  ports: [{number: 8080, name: http, protocol: HTTP}]
`,
};

export const noHandledPortsAnalyzer: Analyzer = {
  codes: [NO_HANDLED_PORTS],
  analyze: (input) => {
    const services = servicesOf(input);
    if (services.length === 0) return [];
    const handled = handledProtocols(input);
    const selects = (name: string): boolean => handled.has(protocolSegment(name) ?? '');
    const gatewayPorts = input.objects.objects.flatMap((o) =>
      o.kind === 'Gateway' ? o.spec.servers.map((s) => s.port.name) : [],
    );
    const names = [...services.flatMap((s) => s.spec.ports.map((p) => p.name)), ...gatewayPorts];
    if (names.some(selects)) return [];
    const n = services.length;
    return [
      {
        code: NO_HANDLED_PORTS,
        message:
          `no port of the ${n} service${n === 1 ? '' : 's'} read selects a protocol this controller handles ` +
          `(${[...handled].sort().join(', ')}): nothing is generated for them`,
      },
    ];
  },
};
