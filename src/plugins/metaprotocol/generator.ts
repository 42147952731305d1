/**
 * The MetaProtocol generator (Aeraki internal/plugin/metaprotocol/generator.go): per MetaProtocol port, an
 * outbound filter per address (RDS) and an inbound filter (static route, rate limits); per gateway server, a
 * gateway filter plus the VirtualService that makes istiod build the `0.0.0.0_<port>` listener.
 */
import type {
  FilterDraft,
  GatewayContext,
  GatewayDraft,
  SidecarContext,
  WaypointContext,
} from '../../model/generator.ts';
import { gatewayVirtualServiceName } from '../../model/names.ts';
import type { Gateway } from '../../model/objects.ts';
import { applicationProtocolOf } from '../../model/protocol.ts';
import { fail, issue, ok, refOf, type ObjectRef, type Result } from '../../model/result.ts';
import { gatewayFilter, inboundDraft, outboundDrafts } from '../sdk/patches.ts';
import { commonFilters, inboundFilters } from './filters.ts';
import {
  inboundProxy,
  metaProtocolNetworkFilter,
  outboundProxy,
  proxyBasics,
  type ProxyBasics,
} from './proxy.ts';

/** Application protocol (third port-name segment, D1) and its codec; errors name `ref` at `path`. */
export function protocolBasics(
  portName: string,
  ctx: Pick<SidecarContext | GatewayContext | WaypointContext, 'codecFor' | 'mesh'>,
  ref: ObjectRef,
  path: string,
): Result<ProxyBasics> {
  const app = applicationProtocolOf(portName, ref, path);
  if (!app.ok) return app;
  const applicationProtocol = app.value;
  const codec = ctx.codecFor(applicationProtocol);
  if (!codec) {
    return fail([
      {
        ...issue(
          ref,
          path,
          `no codec for application protocol "${applicationProtocol}" (built in: dubbo, thrift; others need an ApplicationProtocol)`,
        ),
        rule: 'codec-missing',
      },
    ]);
  }
  return ok(proxyBasics(applicationProtocol, codec, ctx.mesh));
}

/** Sidecar filters of `ctx.port` (D4: this port, its own number): outbound per address, then inbound (D2). */
export function generateSidecar(ctx: SidecarContext): Result<readonly FilterDraft[]> {
  const se = ctx.serviceEntry;
  const ref = refOf(se);
  const host = se.spec.hosts[0];
  if (host === undefined) return fail([issue(ref, 'spec.hosts', 'no hosts')]);
  const basics = protocolBasics(ctx.port.name, ctx, ref, `spec.ports[${ctx.portIndex}].name`);
  if (!basics.ok) return basics;
  const common = commonFilters(host);
  const filters = inboundFilters(ctx.metaRouter, common);
  if (!filters.ok) return filters;

  const port = ctx.port.number;
  const outbound = metaProtocolNetworkFilter(outboundProxy(host, port, basics.value, common));
  const inboundResult = inboundDraft(ctx, (workloadPort) =>
    metaProtocolNetworkFilter(inboundProxy(workloadPort, basics.value, filters.value)),
  );
  if (!inboundResult.ok) return inboundResult;
  const drafts = outboundDrafts(se, ctx.port, outbound);
  if (inboundResult.value) drafts.push(inboundResult.value);
  return ok(drafts);
}

/**
 * Gateway objects for one MetaProtocol server of a Gateway and one MetaRouter bound to it: the gateway filter
 * (listener `0.0.0.0_<port>`, host = the MetaRouter's hosts[0]) and the synthetic VirtualService (spec 6.4).
 */
export function generateGateway(ctx: GatewayContext): Result<readonly GatewayDraft[]> {
  const gw = ctx.gateway;
  const mr = ctx.metaRouter;
  const host = mr.spec.hosts[0];
  if (host === undefined) return fail([issue(refOf(mr), 'spec.hosts', 'no hosts')]);
  const path = `spec.servers[${ctx.serverIndex}].port.name`;
  const basics = protocolBasics(ctx.server.port.name, ctx, refOf(gw), path);
  if (!basics.ok) return basics;

  const port = ctx.server.port.number;
  const proxy = outboundProxy(host, port, basics.value, commonFilters(host));
  const filter = gatewayFilter(gw, port, metaProtocolNetworkFilter(proxy));
  return ok([filter, gatewayVirtualService(gw, host, port)]);
}

/** The VirtualService that makes istiod build the gateway listener `0.0.0.0_<port>` (spec 6.4). */
function gatewayVirtualService(gw: Gateway, host: string, port: number): GatewayDraft {
  const { name, namespace } = gw.metadata;
  return {
    kind: 'VirtualService',
    name: gatewayVirtualServiceName(namespace, name, port),
    namespace,
    spec: {
      hosts: [host],
      gateways: [`${namespace}/${name}`],
      tcp: [{ match: [{ port }], route: [{ destination: { host, port: { number: port } } }] }],
    },
  };
}
