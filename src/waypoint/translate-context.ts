/**
 * The generator's view of one chain of our own waypoint (model/generator.ts OwnWaypointContext), with the clusters
 * it names recorded (the translation builds each of them with its endpoints: clusters.ts), and the image a Gateway
 * runs.
 */
import type { WaypointRef } from '../model/ambient/binding.ts';
import {
  DEFAULT_WAYPOINT_IMAGE,
  waypointImageOf,
  type WaypointImage,
} from '../model/ambient/own-waypoint.ts';
import type { WaypointGateway } from '../model/ambient/waypoint.ts';
import type { Generator, OwnWaypointContext } from '../model/generator.ts';
import { outboundClusterName, routeConfigName } from '../model/names.ts';
import type { ServiceEntry, ServicePort } from '../model/objects.ts';
import type { Protocol } from '../model/protocol.ts';
import { DEFAULT_META_PROTOCOL_IMAGES } from '../model/proxy-images.ts';
import type { ConfigView } from '../model/view.ts';
import type { ClusterRequest } from './clusters.ts';

/** What the translation is configured with (cmd/ options, wired by the app). */
export interface TranslateOptions {
  /** `--waypoint-image`: what a Gateway without `aeraki.io/proxy-image` runs; absent: DEFAULT_WAYPOINT_IMAGE. */
  readonly waypointImage?: string;
  /**
   * Images known to carry the MetaProtocol proxy (model/proxy-images.ts isKnownImage), the whole list; absent:
   * DEFAULT_META_PROTOCOL_IMAGES.
   */
  readonly metaProtocolImages?: readonly string[];
}

/** Images by Gateway object (the store's projections are immutable), per options object. */
const images = new WeakMap<TranslateOptions, WeakMap<WaypointGateway, WaypointImage>>();

/** The image a Gateway of our class runs: its `aeraki.io/proxy-image`, else `--waypoint-image`, else the default. */
export function gatewayImage(gateway: WaypointGateway, options: TranslateOptions): WaypointImage {
  let byGateway = images.get(options);
  if (byGateway === undefined) images.set(options, (byGateway = new WeakMap()));
  const known = byGateway.get(gateway);
  if (known !== undefined) return known;
  const annotated = gateway.ownWaypointImage?.trim();
  const ref = annotated ? annotated : (options.waypointImage ?? DEFAULT_WAYPOINT_IMAGE);
  const image = waypointImageOf(ref, options.metaProtocolImages ?? DEFAULT_META_PROTOCOL_IMAGES);
  byGateway.set(gateway, image);
  return image;
}

/** The parts shared by every port of one service. */
export interface ServicePass {
  readonly view: ConfigView;
  readonly se: ServiceEntry;
  readonly waypoint: WaypointRef;
  readonly image: WaypointImage;
  readonly extensions: Map<Generator, unknown>;
}

function extensionOf(pass: ServicePass, generator: Generator): unknown {
  if (generator.resolveContext === undefined) return undefined;
  if (!pass.extensions.has(generator)) {
    pass.extensions.set(generator, generator.resolveContext(pass.view, pass.se));
  }
  return pass.extensions.get(generator);
}

/** The context of port `portIndex` (host: the service's first host) and the clusters it names, filled as it is used. */
export function ownWaypointContext(
  pass: ServicePass,
  generator: Generator,
  protocol: Protocol,
  portIndex: number,
): { readonly ctx: OwnWaypointContext; readonly clusters: Map<string, ClusterRequest> } {
  const { se, view } = pass;
  const port = se.spec.ports[portIndex] as ServicePort;
  const host = se.spec.hosts[0] ?? '';
  const config = view.configForHost(host, se.metadata.namespace);
  const extension = extensionOf(pass, generator);
  const clusters = new Map<string, ClusterRequest>();
  const ctx: OwnWaypointContext = {
    mode: 'own-waypoint',
    serviceEntry: se,
    port,
    portIndex,
    protocol,
    host,
    waypoint: pass.waypoint,
    image: pass.image,
    ...config,
    mesh: view.mesh(),
    codecFor: (applicationProtocol) => view.codecFor(applicationProtocol),
    clusterOf: (subset, to = host, toPort = port.number) => {
      const s = subset === '' ? undefined : subset;
      const name = outboundClusterName(toPort, s, to);
      clusters.set(name, { name, subset: s, host: to, port: toPort });
      return name;
    },
    routeName: routeConfigName(host, port.number),
    ...(extension !== undefined ? { extension } : {}),
  };
  return { ctx, clusters };
}
