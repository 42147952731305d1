/**
 * The Listener of one of our own waypoints and its filter chains (issue 39; docs/waypoint-own.md sections 2 and 4),
 * as proto3 JSON (envoy.config.listener.v3.Listener in ../shared/protos-2026). The shape is kgateway's "sandwich"
 * (kgateway-dev/kgateway internal/kgateway/extensions2/plugins/sandwich/plugin.go @2cea4eb3: ProxyProtocolTLV and
 * ProxyProtocolTLVAuthorityNetworkFilter; waypoint/waypoint_translator.go @1e6d32be: buildServiceChains), with our
 * names: ztunnel hands the waypoint plain TCP behind a PROXY v2 header whose destination is the service address and
 * port the client dialled and whose TLV 0xD0 is the client's SPIFFE identity (istio/ztunnel src/proxy.rs
 * write_proxy_protocol @62d82653).
 */
import { OWN_WAYPOINT_ENVOY_LISTENER, OWN_WAYPOINT_PORT } from '../model/ambient/own-waypoint.ts';
import type { ProtoJson, ServiceContribution } from '../model/ambient/xds.ts';
import { routeConfigName } from '../model/names.ts';

const PROXY_PROTOCOL_FILTER = 'envoy.filters.listener.proxy_protocol';
const PROXY_PROTOCOL_TYPE =
  'type.googleapis.com/envoy.extensions.filters.listener.proxy_protocol.v3.ProxyProtocol';
const SET_FILTER_STATE_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.set_filter_state.v3.Config';
/** ztunnel's PROXY_PROTOCOL_AUTHORITY_TLV (src/proxy.rs): the source workload's SPIFFE identity. */
export const PEER_IDENTITY_TLV = 0xd0;
/** Where the proxy_protocol listener filter keeps the TLV (its own metadata namespace, key `peer_principal`). */
const PEER_PRINCIPAL_KEY = 'peer_principal';
/** The filter state key Istio's RBAC reads the peer principal from (docs/waypoint-own.md section 2). */
export const PEER_PRINCIPAL_FILTER_STATE = 'io.istio.peer_principal';
/** The name kgateway gives the first network filter of every chain. */
export const PROXY_PROTOCOL_AUTHORITY_FILTER = 'proxy_protocol_authority';

/**
 * The Listener of a Gateway without its `filter_chains` (WaypointChange.listener): `proxy_protocol_inbound` on
 * 0.0.0.0:15088, PROXY protocol required (`allow_requests_without_proxy_protocol` false, the default) and TLV 0xD0
 * kept as dynamic metadata `envoy.filters.listener.proxy_protocol:peer_principal`. The same for every Gateway.
 */
export function listenerTemplate(): ProtoJson {
  return {
    name: OWN_WAYPOINT_ENVOY_LISTENER,
    address: { socket_address: { address: '0.0.0.0', port_value: OWN_WAYPOINT_PORT } },
    listener_filters: [
      {
        name: PROXY_PROTOCOL_FILTER,
        typed_config: {
          '@type': PROXY_PROTOCOL_TYPE,
          rules: [{ tlv_type: PEER_IDENTITY_TLV, on_tlv_present: { key: PEER_PRINCIPAL_KEY } }],
        },
      },
    ],
  };
}

/** The first network filter of every chain: the PROXY header's identity copied to `io.istio.peer_principal`. */
export function peerPrincipalFilter(): ProtoJson {
  return {
    name: PROXY_PROTOCOL_AUTHORITY_FILTER,
    typed_config: {
      '@type': SET_FILTER_STATE_TYPE,
      on_new_connection: [
        {
          object_key: PEER_PRINCIPAL_FILTER_STATE,
          factory_key: 'envoy.string',
          format_string: {
            text_format_source: {
              inline_string: `%DYNAMIC_METADATA(${PROXY_PROTOCOL_FILTER}:${PEER_PRINCIPAL_KEY})%`,
            },
          },
          shared_with_upstream: 'ONCE',
        },
      ],
    },
  };
}

/**
 * `envoy.config.core.v3.CidrRange`s of a service's addresses: an IP as /32 or /128, a CIDR (a ServiceEntry's
 * `addresses` may hold one) as written; undefined for anything else (not an address Envoy can match).
 */
export function prefixRange(address: string): ProtoJson | undefined {
  const slash = address.indexOf('/');
  const ip = slash < 0 ? address : address.slice(0, slash);
  const v4 = /^(\d{1,3})(\.\d{1,3}){3}$/.test(ip) && ip.split('.').every((o) => Number(o) <= 255);
  const v6 = !v4 && ip.includes(':') && /^[0-9a-fA-F:.]+$/.test(ip);
  if (!v4 && !v6) return undefined;
  const max = v4 ? 32 : 128;
  if (slash < 0) return { address_prefix: ip, prefix_len: max };
  const len = address.slice(slash + 1);
  if (!/^\d{1,3}$/.test(len) || Number(len) > max) return undefined;
  return { address_prefix: ip, prefix_len: Number(len) };
}

/**
 * One chain of a service port: matched on the original destination (`destination_port`, `prefix_ranges`), named
 * `<host>_<port>` (host = the service's first host), the peer principal copied first, then `filters`.
 */
export function serviceChain(
  host: string,
  port: number,
  prefixRanges: readonly ProtoJson[],
  filters: readonly ProtoJson[],
): ProtoJson {
  return {
    name: routeConfigName(host, port),
    filter_chain_match: { destination_port: port, prefix_ranges: prefixRanges },
    filters: [peerPrincipalFilter(), ...filters],
  };
}

/**
 * The whole Listener a Gateway's proxies are sent: `template` with the chains of `contributions`, taken in service
 * key order (what the ADS cache assembles from a WaypointChange; the tests check the assembled Listener).
 */
export function assembleListener(
  template: ProtoJson,
  contributions: ReadonlyMap<string, ServiceContribution>,
): ProtoJson {
  const keys = [...contributions.keys()].sort();
  const chains = keys.flatMap((k) => contributions.get(k)?.chains ?? []);
  return { ...template, filter_chains: chains };
}
