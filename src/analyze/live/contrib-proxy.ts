/**
 * AER0104 ProxyLacksContrib: a service whose filter is an Envoy contrib extension (Kafka's kafka_broker) on
 * sidecars whose istio-proxy image is not a contrib build (`options.contribImages`; default:
 * src/analyze/proxy-images.ts). Which filters are contrib is what the plugins declare (ProtocolFacts.contribFilter,
 * `input.protocols`): Envoy builds kafka_broker only in its contrib image
 * (https://www.envoyproxy.io/docs/envoy/latest/start/install#contrib-images).
 */
import type { Protocol } from '../../model/protocol.ts';
import type { AnalysisCode, AnalysisInput, Analyzer } from '../types.ts';
import { checkProxies, type ProxyCheck } from './proxy-check.ts';

export const PROXY_LACKS_CONTRIB: AnalysisCode = {
  code: 'AER0104',
  name: 'ProxyLacksContrib',
  severity: 'error',
  why: "A sidecar without Envoy's contrib extensions rejects the listener that carries kafka_broker: the port stops working.",
  fix: 'Run the service and its clients on an Envoy build with contrib extensions, and name it with --contrib-images.',
  live: true,
  example: `apiVersion: v1
kind: Service
metadata: { name: kafka, namespace: kafka }
spec:
  selector: { app: kafka }
  clusterIP: 10.96.0.9
  ports: [{ name: tcp-kafka, port: 9092 }]
# In the cluster: the pods of kafka labelled app=kafka run istio-proxy docker.io/istio/proxyv2:1.24.2.`,
};

function checkOf(protocol: Protocol, filter: string): ProxyCheck {
  return {
    code: PROXY_LACKS_CONTRIB,
    protocols: new Set([protocol]),
    filter,
    images: (input: AnalysisInput) => input.options.contribImages,
  };
}

export const contribProxyAnalyzer: Analyzer = {
  codes: [PROXY_LACKS_CONTRIB],
  analyze: (input) =>
    (input.protocols ?? []).flatMap((f) =>
      f.contribFilter === undefined ? [] : checkProxies(checkOf(f.name, f.contribFilter), input),
    ),
};
