/**
 * The EnvoyFilter patch shapes every protocol plugin shares (Aeraki envoyfilter/network_filter.go): a REPLACE
 * (or INSERT_BEFORE) of tcp_proxy on an outbound listener `<address>_<port>` (the service port), or on
 * `virtualInbound` for each port the workloads receive the service port on (D16), with the proxy config wrapped in a
 * udpa TypedStruct.
 */
import { TCP_PROXY_FILTER, TYPED_STRUCT_TYPE } from '../../model/constants.ts';
import type { FilterDraft, GatewayDraft, SidecarContext } from '../../model/generator.ts';
import { gatewayFilterName, inboundFilterName, outboundFilterName } from '../../model/names.ts';
import type { EnvoyFilterPatch, Gateway, ServiceEntry, ServicePort } from '../../model/objects.ts';
import { fail, issue, ok, refOf, type Result } from '../../model/result.ts';

export type PatchOperation = 'REPLACE' | 'INSERT_BEFORE';

/** The network filter that replaces tcp_proxy: its name, the proto type of its config and the config (proto3 JSON). */
export interface NetworkFilter {
  readonly filterName: string;
  readonly typeUrl: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly operation?: PatchOperation;
}

export function patchValue(filter: NetworkFilter): Record<string, unknown> {
  return {
    name: filter.filterName,
    typed_config: { '@type': TYPED_STRUCT_TYPE, type_url: filter.typeUrl, value: filter.config },
  };
}

/** The `patch` of a network-filter patch: operation and value. */
function filterPatch(filter: NetworkFilter): EnvoyFilterPatch['patch'] {
  return { operation: filter.operation ?? 'REPLACE', value: patchValue(filter) };
}

function networkFilterPatch(
  listener: Record<string, unknown>,
  patch: EnvoyFilterPatch['patch'],
): EnvoyFilterPatch {
  return { applyTo: 'NETWORK_FILTER', match: { listener }, patch };
}

/** Filter match on tcp_proxy, and the filter-chain match of every outbound listener. Shared, frozen. */
const TCP_PROXY_MATCH: Readonly<Record<string, unknown>> = Object.freeze({ name: TCP_PROXY_FILTER });
const TCP_PROXY_CHAIN: Readonly<Record<string, unknown>> = Object.freeze({ filter: TCP_PROXY_MATCH });

function outboundNetworkFilterPatch(
  address: string,
  port: number,
  patch: EnvoyFilterPatch['patch'],
): EnvoyFilterPatch {
  return networkFilterPatch({ name: `${address}_${port}`, filterChain: TCP_PROXY_CHAIN }, patch);
}

/** Listener match of an outbound listener `<address>_<port>`. */
export function outboundPatch(address: string, port: number, filter: NetworkFilter): EnvoyFilterPatch {
  return outboundNetworkFilterPatch(address, port, filterPatch(filter));
}

/** Filter-chain match of `virtualInbound` on `port`, the port the workload receives on (D16). */
export function inboundPatch(port: number, filter: NetworkFilter): EnvoyFilterPatch {
  const filterChain = { destinationPort: port, filter: TCP_PROXY_MATCH };
  return networkFilterPatch({ name: 'virtualInbound', filterChain }, filterPatch(filter));
}

/**
 * One outbound filter per address of the ServiceEntry (none without addresses), named after `hosts[0]`. The
 * filters differ only in the listener name: they share one `patch` object (generation output is never mutated).
 * `extra` patches (cluster patches, say) follow the network-filter patch in every one of them.
 */
export function outboundDrafts(
  se: ServiceEntry,
  port: ServicePort,
  filter: NetworkFilter,
  extra: readonly EnvoyFilterPatch[] = [],
): FilterDraft[] {
  const host = se.spec.hosts[0] ?? '';
  const addresses = se.spec.addresses;
  const patch = filterPatch(filter);
  return addresses.map((address) => ({
    name: outboundFilterName(host, address, port.number),
    spec: { configPatches: [outboundNetworkFilterPatch(address, port.number, patch), ...extra] },
  }));
}

/** `applyTo: CLUSTER` patch removing the cluster `name` (the one Istio built). */
export function clusterRemovePatch(name: string): EnvoyFilterPatch {
  return { applyTo: 'CLUSTER', match: { cluster: { name } }, patch: { operation: 'REMOVE' } };
}

/**
 * `applyTo: CLUSTER` patch adding `cluster` (an envoy.config.cluster.v3.Cluster in proto3 JSON); no match, so
 * every sidecar the filter reaches gets it. Istio keeps the first of equal clusters.
 */
export function clusterAddPatch(cluster: Readonly<Record<string, unknown>>): EnvoyFilterPatch {
  return { applyTo: 'CLUSTER', patch: { operation: 'ADD', value: cluster } };
}

/**
 * The workload selector of the inbound filter: `spec.workloadSelector.labels` when non-empty, else the
 * `workloadSelector` annotation (`value` -> {app: value}, `key:value` -> {key: value}, spaces removed).
 * undefined when there is neither (deviation D2: no inbound filter then); more than one `:` is an input error.
 */
export function workloadSelectorOf(se: ServiceEntry): Result<Readonly<Record<string, string>> | undefined> {
  const labels = se.spec.workloadSelector?.labels;
  if (labels && Object.keys(labels).length > 0) return ok(labels);
  const annotation = se.metadata.annotations['workloadSelector'];
  if (annotation === undefined) return ok(undefined);
  const parts = annotation.replace(/\s+/g, '').split(':');
  const ref = refOf(se);
  if (parts.length === 1) return ok({ app: parts[0] ?? '' });
  if (parts.length === 2) return ok({ [parts[0] ?? '']: parts[1] ?? '' });
  return fail([
    issue(
      ref,
      'metadata.annotations.workloadSelector',
      `"${annotation}" has more than one ':' (want "value" or "key:value")`,
    ),
  ]);
}

/**
 * The inbound filter of `ctx.port`, or undefined when the ServiceEntry selects no workloads (D2). Named after the
 * service port (`aeraki-inbound-<host>-<port>`), with one patch per port the workloads receive it on
 * (`ctx.inboundPorts`, D16; ascending), each carrying `filterFor(that port)`: the inbound cluster
 * `inbound|<port>||` a sidecar builds is named after that port too.
 */
export function inboundDraft(
  ctx: SidecarContext,
  filterFor: (workloadPort: number) => NetworkFilter,
): Result<FilterDraft | undefined> {
  const se = ctx.serviceEntry;
  const selector = workloadSelectorOf(se);
  if (!selector.ok) return selector;
  if (selector.value === undefined) return ok(undefined);
  const ports = ctx.inboundPorts ?? [ctx.port.number];
  return ok({
    name: inboundFilterName(se.spec.hosts[0] ?? '', ctx.port.number),
    spec: {
      workloadSelector: { labels: selector.value },
      configPatches: ports.map((p) => inboundPatch(p, filterFor(p))),
    },
  });
}

/** Gateway filter: in the gateway's namespace, selecting the gateway's workloads, on listener `0.0.0.0_<port>`. */
export function gatewayFilter(gateway: Gateway, port: number, filter: NetworkFilter): GatewayDraft {
  return {
    kind: 'EnvoyFilter',
    name: gatewayFilterName(gateway.metadata.name, gateway.metadata.namespace, port),
    namespace: gateway.metadata.namespace,
    spec: {
      workloadSelector: { labels: gateway.spec.selector },
      configPatches: [outboundPatch('0.0.0.0', port, filter)],
    },
  };
}
