/**
 * What the `aeraki serve` table fills: one flat object keyed by flag (the row files, one per part of ServeOptions,
 * each declare their part's flags), before the defaults that depend on other options.
 */
import type { AdminFlags } from './serve-rows-admin.ts';
import type { BootstrapFlags } from './serve-rows-bootstrap.ts';
import type { IdentityFlags } from './serve-rows-identity.ts';
import type { KubeFlags } from './serve-rows-kube.ts';
import type { LeaderFlags } from './serve-rows-leader.ts';
import type { ListenerFlags } from './serve-rows-listeners.ts';
import type { LoggingFlags } from './serve-rows-logging.ts';
import type { MeshFlags } from './serve-rows-mesh.ts';
import type { OutputFlags } from './serve-rows-output.ts';
import type { ProxyStatusFlags } from './serve-rows-proxy-status.ts';
import type { RdsFlags } from './serve-rows-rds.ts';
import type { RegistryFlags } from './serve-rows-registries.ts';
import type { SourceFlags } from './serve-rows-source.ts';
import type { VipFlags } from './serve-rows-vip.ts';
import type { WaypointFlags } from './serve-rows-waypoint.ts';
import type { WebhookFlags } from './serve-rows-webhook.ts';

export type ServeFlags = MeshFlags &
  SourceFlags &
  OutputFlags &
  KubeFlags &
  LeaderFlags &
  BootstrapFlags &
  VipFlags &
  RegistryFlags &
  RdsFlags &
  IdentityFlags &
  WebhookFlags &
  AdminFlags &
  ListenerFlags &
  LoggingFlags &
  ProxyStatusFlags &
  WaypointFlags;

/** ServeFlags with every default filled in (serve-config.ts), and the version: what serveOptionsOf nests. */
export type ServeValues = Omit<ServeFlags, 'leaderElect' | 'allocateVips'> & {
  readonly leaderElect: boolean;
  readonly allocateVips: boolean;
  readonly version: string;
};
