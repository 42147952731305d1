/**
 * AER0103 ProxyLacksMetaProtocol: a MetaProtocol service whose server or client sidecars run an istio-proxy image
 * without the MetaProtocol proxy (`options.metaProtocolImages`; default: src/analyze/proxy-images.ts). Such a proxy
 * rejects the whole listener carrying `meta_protocol_proxy` (a NACK), so the port gets no traffic at all.
 */
import { META_PROTOCOL_PROXY_FILTER } from '../../model/constants.ts';
import type { AnalysisCode, AnalysisInput, Analyzer } from '../types.ts';
import { checkProxies, type ProxyCheck } from './proxy-check.ts';
import { ORDERS_ENTRY } from '../examples.ts';

export const PROXY_LACKS_META_PROTOCOL: AnalysisCode = {
  code: 'AER0103',
  name: 'ProxyLacksMetaProtocol',
  severity: 'error',
  why: 'A sidecar without the MetaProtocol proxy rejects the listener that carries meta_protocol_proxy: the port stops working.',
  fix: 'Give the pods the MetaProtocol proxy image (annotation sidecar.istio.io/proxyImage), or name your image with --metaprotocol-images.',
  live: true,
  example: `${ORDERS_ENTRY}  workloadSelector: { labels: { app: orders } }
  resolution: STATIC
# In the cluster: the pods of shop labelled app=orders run istio-proxy docker.io/istio/proxyv2:1.24.2.`,
};

const check: ProxyCheck = {
  code: PROXY_LACKS_META_PROTOCOL,
  protocols: new Set(['metaprotocol']),
  filter: META_PROTOCOL_PROXY_FILTER,
  images: (input: AnalysisInput) => input.options.metaProtocolImages,
};

export const metaProtocolProxyAnalyzer: Analyzer = {
  codes: [PROXY_LACKS_META_PROTOCOL],
  analyze: (input) => checkProxies(check, input),
};
