/**
 * AER0017 WaypointLacksProtocolProxy: a MetaProtocol or Kafka port of a service bound to an Istio waypoint
 * (model/ambient/binding.ts waypointOf) that the waypoint's image cannot run. The waypoint runs istio-proxy unless
 * its Gateway's `sidecar.istio.io/proxyImage` names another image (model/ambient/waypoint.ts
 * waypointImageOverride); istio-proxy builds neither `meta_protocol_proxy` nor `kafka_broker`
 * (../shared/protos-2026/SOURCES.md). Generation then writes no filter for the port and warns
 * (envoyfilter/waypoint.ts, plugins' generateWaypoint); this code reports it whatever `--waypoint-envoyfilters`
 * says (with the flag off no waypoint filter is written at all), and covers generation's warning. A MetaProtocol
 * port is fine on a known MetaProtocol image (`--metaprotocol-images`); Kafka gets no waypoint filter on any image.
 * A warning: the port still works, as plain TCP through the waypoint.
 */
import { META_PROTOCOL_PROXY_FILTER } from '../../model/constants.ts';
import { PROXY_IMAGE_ANNOTATION } from '../../model/ambient/labels.ts';
import { waypointImageOverride } from '../../model/ambient/waypoint.ts';
import { protocolSegment } from '../../model/protocol.ts';
import { isKnownImage } from '../../model/proxy-images.ts';
import { refOf, refString, type ConfigIssue } from '../../model/result.ts';
import { OWN_WAYPOINT_CLASS } from '../../model/ambient/own-waypoint.ts';
import { bindingOf, WAYPOINT_FLAG } from '../ambient-advice.ts';
import { handledServices } from '../live/services.ts';
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer } from '../types.ts';
import { ORDERS_ENTRY_HEAD } from '../examples.ts';

export const WAYPOINT_LACKS_PROTOCOL_PROXY: AnalysisCode = {
  code: 'AER0017',
  name: 'WaypointLacksProtocolProxy',
  severity: 'warning',
  why: "The service's waypoint runs istio-proxy (or another image without the protocol's proxy): no waypoint filter is written for a MetaProtocol or Kafka port, and its RPC stays plain TCP.",
  fix: 'For MetaProtocol, run the waypoint on a MetaProtocol proxy image (Gateway annotation sidecar.istio.io/proxyImage, or name yours with --metaprotocol-images); for Kafka, opt the service out of the waypoint and run it with sidecars.',
  live: false,
  example: `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: waypoint, namespace: shop}
spec:
  gatewayClassName: istio-waypoint
  listeners: [{name: mesh, port: 15008, protocol: HBONE}]
status:
  addresses: [{type: IPAddress, value: 10.96.0.20}]
---
${ORDERS_ENTRY_HEAD.replace('namespace: shop}', 'namespace: shop, labels: {istio.io/use-waypoint: waypoint}}')}  ports: [{number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP}]
`,
};

const META_PROTOCOL = 'metaprotocol';
const KAFKA = 'kafka';

function advice(input: AnalysisInput, protocol: string): string {
  if (protocol === KAFKA) {
    return 'this controller writes no Kafka filter for waypoints (istio-proxy has no kafka_broker): label the service istio.io/use-waypoint=none and run it and its clients with sidecars on a contrib image';
  }
  const image = `run the waypoint on a MetaProtocol proxy image (Gateway annotation ${PROXY_IMAGE_ANNOTATION}: ghcr.io/aeraki-mesh/meta-protocol-proxy:<tag>, or name yours with --metaprotocol-images)`;
  return input.options.waypointFilters === true ? image : `turn on ${WAYPOINT_FLAG} and ${image}`;
}

/** The contrib filter the Kafka plugin declares (ProtocolFacts). */
function kafkaFilter(input: AnalysisInput): string {
  return (
    input.protocols?.find((p) => p.name === KAFKA)?.contribFilter ?? 'envoy.filters.network.kafka_broker'
  );
}

function analyze(input: AnalysisInput): AnalysisMessage[] {
  const out: AnalysisMessage[] = [];
  for (const { service } of handledServices(input)) {
    const binding = bindingOf(input, service);
    // Our own waypoint (aeraki-waypoint) says what it cannot carry on its Gateway's status (src/waypoint/).
    if (binding === undefined || !binding.bound || binding.gateway.className === OWN_WAYPOINT_CLASS) continue;
    const override = waypointImageOverride(binding.gateway);
    const image = override ?? 'istio-proxy';
    const metaProtocolImage =
      override !== undefined && isKnownImage(override, input.options.metaProtocolImages);
    const waypoint = `${binding.waypoint.namespace}/${binding.waypoint.name}`;
    service.spec.ports.forEach((port, i) => {
      const protocol = protocolSegment(port.name);
      if (protocol !== KAFKA && (protocol !== META_PROTOCOL || metaProtocolImage)) return;
      const filter = protocol === KAFKA ? kafkaFilter(input) : META_PROTOCOL_PROXY_FILTER;
      out.push({
        code: WAYPOINT_LACKS_PROTOCOL_PROXY,
        ref: refOf(service),
        path: `spec.ports[${i}].name`,
        message:
          `${refString(refOf(service))} is bound to waypoint ${waypoint}, whose image ${image} has no ${filter}: ` +
          `port "${port.name}" gets no waypoint filter, its RPC is plain TCP; ${advice(input, protocol)}`,
      });
    });
  }
  return out;
}

/** Generation's warning for the same port (plugins/sdk/waypoint.ts waypointImageWarning). */
function covers(issue: ConfigIssue): boolean {
  return (
    issue.path.startsWith('spec.ports[') &&
    /is bound to waypoint .*, whose image .* has no /.test(issue.message)
  );
}

export const waypointImageAnalyzer: Analyzer = {
  codes: [WAYPOINT_LACKS_PROTOCOL_PROXY],
  analyze,
  covers,
};
