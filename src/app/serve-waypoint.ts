/**
 * Our own waypoint in `aeraki serve` (README, Ambient; issue 39): on every replica, the endpoints its EDS is built
 * from (with the Kubernetes API) and the translation of the services bound to `aeraki-waypoint` Gateways into
 * listeners, clusters, endpoints and routes, pushed into the ADS cache the RDS server serves; on the leader, when
 * serve writes to the Kubernetes API, the Gateway controller (serve-waypoint-gateways.ts).
 */
import { KubeEndpointsView } from '../controller/endpoints-view.ts';
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
