/**
 * Our own waypoint in `aeraki serve` (README, Ambient; issue 39): on every replica, the endpoints its EDS is built
 * from (with the Kubernetes API) and the translation of the services bound to `aeraki-waypoint` Gateways into
 * listeners, clusters, endpoints and routes, pushed into the ADS cache the RDS server serves; on the leader, when
 * serve writes to the Kubernetes API, the Gateway controller (buildWaypointGateways).
 */
import { KubeEndpointsView } from '../controller/endpoints-view.ts';
import { limitedApply } from '../kit/apply.ts';
import type { RuntimePart } from '../kit/runtime.ts';
import { createWaypointGateways, type WaypointGateways } from '../waypoint/gateway-parts.ts';
import { generatorSet } from '../envoyfilter/generate-all.ts';
import type { Part } from '../kit/lifecycle.ts';
import { NO_ENDPOINTS, type EndpointsView } from '../model/ambient/endpoints.ts';
import type { WaypointXdsSink } from '../model/ambient/xds.ts';
import { createProtocolNames } from '../plugins/registry.ts';
import { WaypointTranslator } from '../waypoint/incremental.ts';
import { WaypointSource } from '../waypoint/incremental-source.ts';
import type { ServeOptions } from './options.ts';
import type { ServeBase } from './serve-base.ts';
import type { ServeInputs } from './serve-inputs.ts';
import type { ServeRds } from './serve-rds.ts';

export interface ServeWaypoint {
  readonly endpoints: EndpointsView;
  /** The Kubernetes endpoints view; undefined without the Kubernetes API (no endpoints: clusters stay empty). */
  readonly kubeEndpoints: KubeEndpointsView | undefined;
  readonly translator: WaypointTranslator;
  readonly source: WaypointSource;
  /** Endpoints, then translation: every replica, started after the sources were built and before they start. */
  readonly parts: readonly Part[];
}

/**
 * Builds the endpoints view (before the sources start: it shares their informers) and the translator feeding
 * `sink`. Nothing is pushed before the sources and the endpoints synced (WaypointSource's gate).
 */
export function buildWaypoint(
  o: ServeOptions,
  base: ServeBase,
  inputs: ServeInputs,
  sink: WaypointXdsSink,
): ServeWaypoint {
  const { kc, informers, logger } = base;
  const { store, sources, generators, topics } = inputs;
  const kubeEndpoints =
    kc && informers
      ? new KubeEndpointsView({
          kc,
          informers,
          config: store,
          workloadEntries: o.mesh.istioApiVersion === 'v1alpha3' ? 'v1alpha3' : 'v1',
          onKindChange: () =>
            topics.kinds.publish({ synced: sources.synced, unavailable: sources.unavailableKinds() }),
          logger: logger.child({ component: 'endpoints' }),
        })
      : undefined;
  const endpoints: EndpointsView = kubeEndpoints ?? NO_ENDPOINTS;
  const translator = new WaypointTranslator({
    view: store,
    ambient: store,
    endpoints,
    byProtocol: generatorSet(generators, createProtocolNames(generators)).byProtocol,
    options: { waypointImage: o.waypoint.image, metaProtocolImages: o.output.metaProtocolImages },
  });
  const source = new WaypointSource(translator, sink, {
    logger: logger.child({ component: 'waypoint' }),
    isReady: () => sources.synced && endpoints.synced(),
  });
  const parts: Part[] = [
    ...(kubeEndpoints
      ? [{ name: 'endpoints', start: () => kubeEndpoints.start(), stop: () => kubeEndpoints.stop() }]
      : []),
    {
      name: 'waypoint-translation',
      start: () => source.start(),
      stop: async () => {
        await source.stop();
        translator.stop();
      },
    },
  ];
  return { endpoints, kubeEndpoints, translator, source, parts };
}

/** The controller's xDS address as waypoints reach it: `--xds-service-address`, else `aeraki.<root namespace>.svc`. */
function xdsHostOf(o: ServeOptions): string {
  const given = o.bootstrap.xdsServiceAddress;
  return given !== '' ? given.replace(/:\d+$/, '') : `aeraki.${o.mesh.rootNamespace}.svc`;
}

/**
 * The Gateway controller of `aeraki-waypoint` Gateways and its CA, when serve writes to the Kubernetes API (no flag:
 * a cluster without the Gateway API CRDs has no Gateways, and stays ready). Built before anything starts (it
 * subscribes to the shared informers). The CA's root joins what the xDS server trusts for client certificates;
 * each waypoint's Secret carries the root that verifies the server (the mesh root the server's provider serves).
 * Parts: the CA reader on every replica, the controller on the leader.
 */
export function buildWaypointGateways(
  o: ServeOptions,
  base: ServeBase,
  rds: ServeRds,
  waypoint: ServeWaypoint,
): WaypointGateways | undefined {
  const { kc, informers, logger, limiter, identity } = base;
  if (!base.output.clusterWriters || !kc || !informers) return undefined;
  const trust = rds.trust;
  const gateways = createWaypointGateways({
    kc,
    informers,
    apply: limitedApply(limiter),
    trustDomain: o.mesh.trustDomain,
    namespace: o.identity.podNamespace || o.mesh.rootNamespace,
    instance: o.podName,
    image: o.waypoint.image,
    xdsHost: xdsHostOf(o),
    xdsPort: o.rds.address.port || rds.port(),
    ...(identity.serverIdentity ? { serverIdentity: identity.serverIdentity } : {}),
    serverRoot: () => trust?.baseRoot?.toString('utf8') ?? '',
    clusterDomain: o.mesh.clusterDomain,
    programs: rds.server.waypointPrograms,
    coverage: waypoint.translator.coverage,
    logger,
  });
  gateways.ca.onRoot((root) => trust?.setExtraRoots(root ? Buffer.from(root) : undefined));
  // The Secrets' `ca.crt` is the server's root: a new one reaches them at once.
  if (trust) trust.onBaseRootChange = () => gateways.controller.trigger();
  return gateways;
}

/** The gateways' parts: the CA reader (every replica), then the controller (leader). */
export function gatewayParts(gateways: WaypointGateways | undefined): readonly RuntimePart[] {
  return gateways ? gateways.parts : [];
}
