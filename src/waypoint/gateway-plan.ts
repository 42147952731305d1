/**
 * The writes one run plans for a GatewayClass and for a Gateway of our class (gateway-controller.ts executes them
 * through kit/apply.ts): the owned objects that differ from what was last applied, the status when the current
 * one does not say it already, and the Events not reported yet.
 */
import type { WriteOp } from '../kit/write.ts';
import { gatewayKey } from '../model/ambient/own-waypoint.ts';
import type { WaypointCoverage, WaypointPrograms } from '../model/ambient/xds.ts';
import { contentHash } from '../util/json.ts';
import type { PemPair } from './gateway-certs.ts';
import type { WaypointKubePort } from './gateway-kube.ts';
import { validateGateway, type GatewayClassInfo, type GatewayInfo } from './gateway-objects.ts';
import {
  deploymentOf,
  secretOf,
  serviceAccountOf,
  serviceOf,
  type OwnedBody,
  type OwnedSettings,
} from './owned-objects.ts';
import {
  CLASS_ACCEPTED,
  gatewayAddresses,
  gatewayConditions,
  gatewayEvents,
  sameAddresses,
  sameConditions,
  withTimes,
  type GatewayStatusBody,
} from './status.ts';

export interface GatewayPlanInput {
  readonly gateway: GatewayInfo;
  readonly settings: OwnedSettings & { readonly serverRoot: () => string };
  /** The owned Service's cluster IP, when the Service exists. */
  readonly clusterIP: string | undefined;
  readonly clusterDomain: string;
  readonly programs: WaypointPrograms | undefined;
  readonly coverage: WaypointCoverage | undefined;
  /** RFC 3339 time of the run (lastTransitionTime of changed conditions). */
  readonly now: string;
  /** Event keys already reported; a successful create adds its key. */
  readonly reported: Set<string>;
}

export interface GatewayPlanDeps {
  readonly credential: (g: GatewayInfo) => Promise<PemPair>;
  readonly port: WaypointKubePort;
  /** Object key -> content hash last applied; a successful apply records its hash. */
  readonly applied: Map<string, string>;
  readonly time: () => Date;
}

export interface GatewayPlan {
  readonly ops: WriteOp[];
  /** The keys of every Event the Gateway's state calls for (reported or not). */
  readonly events: string[];
}

/** The key of an owned object in the applied map: `<ns>/<gateway>@<uid>|<kind>`. */
export function appliedKey(g: GatewayInfo, kind: string): string {
  return `${g.namespace}/${g.name}@${g.uid}|${kind}`;
}

export function planClass(c: GatewayClassInfo, now: string, port: WaypointKubePort): WriteOp[] {
  const conditions = withTimes([CLASS_ACCEPTED], c.generation, c.conditions, now);
  if (sameConditions(conditions, c.conditions)) return [];
  return [
    {
      op: 'update',
      kind: 'GatewayClass',
      namespace: '',
      name: c.name,
      write: () => port.patchClassStatus(c.name, { conditions }),
    },
  ];
}

function applyOps(g: GatewayInfo, bodies: readonly OwnedBody[], deps: GatewayPlanDeps): WriteOp[] {
  const ops: WriteOp[] = [];
  for (const body of bodies) {
    const key = appliedKey(g, body.kind);
    const hash = contentHash(body);
    if (deps.applied.get(key) === hash) continue;
    ops.push({
      op: 'update',
      kind: body.kind,
      namespace: g.namespace,
      name: body.metadata.name,
      write: async () => {
        await deps.port.apply(body);
        deps.applied.set(key, hash);
      },
    });
  }
  return ops;
}

export async function planGateway(input: GatewayPlanInput, deps: GatewayPlanDeps): Promise<GatewayPlan> {
  const g = input.gateway;
  const key = gatewayKey(g.namespace, g.name);
  const rejection = validateGateway(g);
  const ops: WriteOp[] = [];
  if (rejection === undefined) {
    const pair = await deps.credential(g);
    const s = input.settings;
    const credential = { ...pair, serverRoot: s.serverRoot() };
    ops.push(
      ...applyOps(g, [serviceAccountOf(g), serviceOf(g), deploymentOf(g, s), secretOf(g, credential)], deps),
    );
  }
  const state = input.programs?.state(key);
  const uncarried = rejection === undefined ? (input.coverage?.uncarried(key) ?? []) : [];
  const conditions = withTimes(
    gatewayConditions(rejection, state, uncarried),
    g.generation,
    g.conditions,
    input.now,
  );
  const addresses =
    rejection === undefined
      ? gatewayAddresses(g.namespace, g.name, input.clusterIP, input.clusterDomain)
      : undefined;
  if (!sameConditions(conditions, g.conditions) || (addresses && !sameAddresses(addresses, g.addresses))) {
    const status: GatewayStatusBody = { ...(addresses ? { addresses } : {}), conditions };
    ops.push({
      op: 'update',
      kind: 'Gateway',
      namespace: g.namespace,
      name: g.name,
      write: () => deps.port.patchGatewayStatus(g.namespace, g.name, status),
    });
  }
  const events = gatewayEvents(g, rejection, state, uncarried);
  for (const e of events) {
    if (input.reported.has(e.key)) continue;
    ops.push({
      op: 'create',
      kind: 'Event',
      namespace: g.namespace,
      name: e.reason,
      write: async () => {
        await deps.port.createEvent(e, deps.time());
        input.reported.add(e.key);
      },
    });
  }
  return { ops, events: events.map((e) => e.key) };
}
