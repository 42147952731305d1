/**
 * Which MetaRouter serves a MetaProtocol server port of a Gateway. Every MetaRouter bound to the Gateway with a
 * route destination on the port claims it; gateway mode generates one EnvoyFilter and one VirtualService per
 * Gateway and port (their names carry no MetaRouter), so only one claim can be honoured: the oldest (D6).
 */
import type { Gateway, MetaRouter } from '../objects.ts';
import { compareOldestFirst } from '../order.ts';
import type { ConfigView } from '../view.ts';

/** True when a route of `mr` has a destination on `port`. */
export function routesToPort(mr: MetaRouter, port: number): boolean {
  return mr.spec.routes.some((r) => r.route.some((d) => d.destination.port?.number === port));
}

/** The MetaRouters bound to `gw` that claim `port`, in D6 order: the first one is used, the others are ignored. */
export function gatewayPortClaims(view: ConfigView, gw: Gateway, port: number): MetaRouter[] {
  const bound = view.metaRoutersForGateway(gw.metadata.namespace, gw.metadata.name);
  return bound.filter((mr) => routesToPort(mr, port)).sort(compareOldestFirst);
}

/** Index of the `spec.gateways` entry of `mr` that names `gw` (a bare entry is in the MetaRouter's namespace). */
export function gatewayEntryIndex(mr: MetaRouter, gw: Gateway): number {
  const key = `${gw.metadata.namespace}/${gw.metadata.name}`;
  return mr.spec.gateways.findIndex((g) => (g.includes('/') ? g : `${mr.metadata.namespace}/${g}`) === key);
}
