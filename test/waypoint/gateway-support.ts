// What the Gateway controller's tests share: a fake kube-apiserver with (or without) the Gateway API CRDs, the
// controller built as the app builds it (shared informers, CA, kube port, kit apply) on a manual clock, fakes of
// the ADS side's WaypointPrograms and the translation's WaypointCoverage, and the objects of a waypoint.
import { applyWrites } from '../../src/kit/apply.ts';
import { InformerHub } from '../../src/kit/kube/informer-hub.ts';
import type { GatewayKey } from '../../src/model/ambient/own-waypoint.ts';
import type {
  WaypointCoverage,
  WaypointProgramState,
  WaypointPrograms,
} from '../../src/model/ambient/xds.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import type { RuntimePart } from '../../src/kit/runtime.ts';
import type { WaypointCa } from '../../src/waypoint/ca.ts';
import type { GatewayController } from '../../src/waypoint/gateway-controller.ts';
import { createWaypointGateways } from '../../src/waypoint/gateway-parts.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
  type KubeObject,
  type ResourceType,
} from '../fakes/kube-apiserver/index.ts';
import { testCa } from '../fakes/test-ca.ts';
import { refClock } from '../reconcile/support.ts';

export const GROUP = 'gateway.networking.k8s.io';
export const CONTROLLER_NS = 'istio-system';
export const TRUST_DOMAIN = 'cluster.local';
export const IMAGE = 'docker.io/envoyproxy/envoy:v1.38.4';

export const GATEWAY_TYPES: ResourceType[] = [
  {
    group: GROUP,
    versions: ['v1'],
    kind: 'Gateway',
    plural: 'gateways',
    namespaced: true,
    statusSubresource: true,
  },
  {
    group: GROUP,
    versions: ['v1'],
    kind: 'GatewayClass',
    plural: 'gatewayclasses',
    namespaced: false,
    statusSubresource: true,
  },
];

export const waypointClass = (): KubeObject => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'GatewayClass',
  metadata: { name: 'aeraki-waypoint' },
  spec: { controllerName: 'aeraki.io/waypoint-controller' },
});

export function gateway(
  name: string,
  listeners: unknown[],
  annotations: Record<string, string> = {},
): KubeObject {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'Gateway',
    metadata: { namespace: 'shop', name, annotations },
    spec: { gatewayClassName: 'aeraki-waypoint', listeners },
  };
}

export const PROXY_LISTENER = { name: 'proxy', port: 15088, protocol: 'istio.io/PROXY' };

/** WaypointPrograms as the ADS side reports them, set by the test. */
export class FakePrograms implements WaypointPrograms {
  private readonly states = new Map<GatewayKey, WaypointProgramState>();
  private readonly listeners = new Set<(g: readonly GatewayKey[]) => void>();
  state(gateway: GatewayKey): WaypointProgramState {
    return this.states.get(gateway) ?? { gateway, state: 'none', connected: 0 };
  }
  set(s: WaypointProgramState): void {
    this.states.set(s.gateway, s);
    for (const l of this.listeners) l([s.gateway]);
  }
  subscribe(listener: (g: readonly GatewayKey[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export class FakeCoverage implements WaypointCoverage {
  private readonly lines = new Map<GatewayKey, readonly string[]>();
  private readonly listeners = new Set<(g: readonly GatewayKey[]) => void>();
  uncarried(gateway: GatewayKey): readonly string[] {
    return this.lines.get(gateway) ?? [];
  }
  set(gateway: GatewayKey, lines: readonly string[]): void {
    this.lines.set(gateway, lines);
    for (const l of this.listeners) l([gateway]);
  }
  subscribe(listener: (g: readonly GatewayKey[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export interface Harness {
  readonly api: FakeKubeApiServer;
  readonly clock: ManualClock;
  readonly ca: WaypointCa;
  readonly controller: GatewayController;
  readonly programs: FakePrograms;
  readonly coverage: FakeCoverage;
  readonly parts: readonly RuntimePart[];
  /** Advances the clock and waits for the runs until `pred` holds (polling; rejects after 10 s). */
  until(pred: () => boolean, what: string): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Serve the Gateway API CRDs (default true). */
  readonly gatewayApi?: boolean;
  readonly token?: string;
  readonly certLifetimeMs?: number;
  /** Start the CA reader and the controller's leader part (default true; false: the test runs `parts`). */
  readonly start?: boolean;
}

export async function harness(o: HarnessOptions = {}): Promise<Harness> {
  const api = await startFakeKubeApiServer({ resources: o.gatewayApi === false ? [] : GATEWAY_TYPES });
  const kc = fakeKubeConfig(api, { token: o.token ?? 'waypoint-controller' });
  const clock = new ManualClock(Date.now());
  const informers = new InformerHub({
    kc,
    backoff: { initialMs: 50, maxMs: 300 },
    minWatchIntervalMs: 20,
    rediscoverMs: 50,
    clock: refClock,
    logger: silentLogger,
  });
  const programs = new FakePrograms();
  const coverage = new FakeCoverage();
  const { ca, controller, parts } = createWaypointGateways({
    kc,
    informers,
    apply: applyWrites,
    trustDomain: TRUST_DOMAIN,
    namespace: CONTROLLER_NS,
    instance: 'aeraki-0',
    image: IMAGE,
    xdsHost: 'aeraki.istio-system.svc',
    xdsPort: 15010,
    serverIdentity: 'spiffe://cluster.local/ns/istio-system/sa/aeraki',
    serverRoot: () => testCa().ca,
    programs,
    coverage,
    ...(o.certLifetimeMs !== undefined ? { certLifetimeMs: o.certLifetimeMs } : {}),
    resyncMs: 0,
    clock,
    logger: silentLogger,
  });
  const [caPart, part] = parts as [RuntimePart, RuntimePart];
  if (o.start !== false) {
    await caPart.start?.();
    await part.start?.();
  }
  const until = async (pred: () => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      clock.advance(500); // past the debounce: a requested run starts
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    api,
    clock,
    ca,
    controller,
    programs,
    coverage,
    parts,
    until,
    async close() {
      await part.drain?.();
      await caPart.stop?.();
      await api.close();
    },
  };
}

/** A condition of an object's status. */
export function conditionOf(o: KubeObject | undefined, type: string): Record<string, unknown> | undefined {
  const conds = (o?.['status'] as { conditions?: Record<string, unknown>[] } | undefined)?.conditions ?? [];
  return conds.find((c) => c['type'] === type);
}

export const b64 = (s: unknown): string => Buffer.from(String(s), 'base64').toString('utf8');
