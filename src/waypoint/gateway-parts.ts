/**
 * What src/app builds for the waypoints' Gateway controller when `serve` writes to the Kubernetes API (always: no
 * flag): the CA reader (every replica: its root is what the xDS server trusts for waypoints' client certificates)
 * and the controller (leader only). Both subscribe to the process's shared informers here, at construction, before
 * the runtime starts anything (kit/kube/informer-hub.ts: a reader joining a running informer must not need fields
 * it drops).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeInformers } from '../kit/kube/informer-hub.ts';
import type { RuntimePart } from '../kit/runtime.ts';
import type { ApplyWrites } from '../kit/write.ts';
import type { WaypointCoverage, WaypointPrograms } from '../model/ambient/xds.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/logger.ts';
import { WaypointCa } from './ca.ts';
import { GatewayController, type GatewayRunReport } from './gateway-controller.ts';
import { createWaypointKubePort } from './gateway-kube.ts';

export interface WaypointGatewaysOptions {
  readonly kc: KubeConfig;
  readonly informers: KubeInformers;
  /** kit/apply.ts applyWrites, or limitedApply(the process's limiter). */
  readonly apply: ApplyWrites;
  /** The mesh trust domain (`spiffe://<td>/ns/N/sa/W`). */
  readonly trustDomain: string;
  /** The controller's namespace: where the CA Secret lives. */
  readonly namespace: string;
  /** The pod name (Events' reportingInstance). */
  readonly instance: string;
  /** `--waypoint-image` (default DEFAULT_WAYPOINT_IMAGE, model/ambient/own-waypoint.ts). */
  readonly image: string;
  /** The controller's xDS address as waypoints reach it (its Service name, e.g. `aeraki.istio-system.svc`) and port. */
  readonly xdsHost: string;
  readonly xdsPort: number;
  /** The identity of the xDS server's certificate (a `spiffe://` URI SAN, or a DNS SAN; default `xdsHost`). */
  readonly serverIdentity?: string;
  /** The root that verifies the xDS server's certificate (each waypoint Secret's `ca.crt`); call `trigger()` on change. */
  readonly serverRoot: () => string;
  readonly clusterDomain?: string;
  /** The ADS side's ACK/NACK state per Gateway, and the translation's coverage (absent: Pending, all carried). */
  readonly programs?: WaypointPrograms;
  readonly coverage?: WaypointCoverage;
  readonly certLifetimeMs?: number;
  /** Periodic full run, which also applies every owned object again (default 10 minutes; 0 disables). */
  readonly resyncMs?: number;
  readonly onRun?: (report: GatewayRunReport) => void;
  readonly clock?: Clock;
  readonly logger: Logger;
}

export interface WaypointGateways {
  /** Its `root()` and `onRoot()`: add the root to the xDS server's client-certificate trust. */
  readonly ca: WaypointCa;
  readonly controller: GatewayController;
  /** The CA reader (every replica), then the controller (`needLeader`). */
  readonly parts: readonly RuntimePart[];
}

export function createWaypointGateways(o: WaypointGatewaysOptions): WaypointGateways {
  const logger = o.logger.child({ component: 'waypoint-gateways' });
  const ca = new WaypointCa({
    kc: o.kc,
    informers: o.informers,
    namespace: o.namespace,
    trustDomain: o.trustDomain,
    logger,
  });
  const controller = new GatewayController({
    kc: o.kc,
    informers: o.informers,
    port: createWaypointKubePort(o.kc, { instance: o.instance }),
    apply: o.apply,
    ca,
    trustDomain: o.trustDomain,
    serverRoot: o.serverRoot,
    image: o.image,
    xdsHost: o.xdsHost,
    xdsPort: o.xdsPort,
    ...(o.serverIdentity !== undefined ? { serverIdentity: o.serverIdentity } : {}),
    ...(o.clusterDomain !== undefined ? { clusterDomain: o.clusterDomain } : {}),
    ...(o.programs ? { programs: o.programs } : {}),
    ...(o.coverage ? { coverage: o.coverage } : {}),
    ...(o.certLifetimeMs !== undefined ? { certLifetimeMs: o.certLifetimeMs } : {}),
    ...(o.resyncMs !== undefined ? { resyncMs: o.resyncMs } : {}),
    ...(o.onRun ? { onRun: o.onRun } : {}),
    ...(o.clock ? { clock: o.clock } : {}),
    logger: o.logger,
  });
  return { ca, controller, parts: [ca.part(), controller.part()] };
}
