/**
 * The status the Gateway controller writes (Gateway API v1 GatewayStatus and GatewayClassStatus) and the Events it
 * creates. Pure: what the status should be, and whether the current one already says it.
 *
 * - GatewayClass of ours: `Accepted: True` (reason `Accepted`).
 * - Gateway: `addresses` (the Service's cluster IP as `IPAddress`, or `W.N.svc.<cluster domain>` as `Hostname`
 *   before one is assigned: istiod takes either, waypoints.go getGatewayAddress); `Accepted` (True, or False with
 *   `ListenersNotValid` and the field); `Programmed` from the ADS side's WaypointProgramState (`acked` True;
 *   `rejected` False, reason `ProxyRejected`, the first error detail; else Unknown, reason `Pending`); and
 *   `aeraki.io/ServicesCarried` (an implementation-specific, domain-prefixed condition type, as the Gateway API
 *   asks of them): True, or False with reason `NotCarried` and one line per service port the waypoint cannot carry
 *   (WaypointCoverage).
 * `lastTransitionTime` is kept while a condition's status does not change.
 */
import type { WaypointProgramState } from '../model/ambient/xds.ts';
import type { GatewayAddress, GatewayCondition, GatewayRejection } from './gateway-objects.ts';

export const CARRIED_CONDITION = 'aeraki.io/ServicesCarried';
/** The most a condition message may hold (metav1.Condition: maxLength 32768). */
const MAX_MESSAGE = 32_768;

export interface GatewayStatusBody {
  readonly addresses?: readonly GatewayAddress[];
  readonly conditions: readonly GatewayCondition[];
}

type Cond = Omit<GatewayCondition, 'lastTransitionTime' | 'observedGeneration'>;

function clip(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
}

/** `conds` at `generation`, each keeping the current condition's lastTransitionTime while its status holds. */
export function withTimes(
  conds: readonly Cond[],
  generation: number,
  current: readonly GatewayCondition[],
  now: string,
): GatewayCondition[] {
  return conds.map((c) => {
    const before = current.find((x) => x.type === c.type);
    const since = before !== undefined && before.status === c.status ? before.lastTransitionTime : undefined;
    return {
      ...c,
      message: clip(c.message),
      observedGeneration: generation,
      lastTransitionTime: since ?? now,
    };
  });
}

/** True when `current` already says `desired` (lastTransitionTime aside). */
export function sameConditions(
  desired: readonly GatewayCondition[],
  current: readonly GatewayCondition[],
): boolean {
  if (desired.length !== current.length) return false;
  return desired.every((d) => {
    const c = current.find((x) => x.type === d.type);
    return (
      c !== undefined &&
      c.status === d.status &&
      c.reason === d.reason &&
      c.message === d.message &&
      c.observedGeneration === d.observedGeneration
    );
  });
}

export function sameAddresses(a: readonly GatewayAddress[], b: readonly GatewayAddress[]): boolean {
  return a.length === b.length && a.every((x, i) => x.type === b[i]!.type && x.value === b[i]!.value);
}

export const CLASS_ACCEPTED: Cond = {
  type: 'Accepted',
  status: 'True',
  reason: 'Accepted',
  message: 'Handled by aeraki.io/waypoint-controller',
};

/** The Gateway's address: the Service's cluster IP, else its DNS name. */
export function gatewayAddresses(
  namespace: string,
  name: string,
  clusterIP: string | undefined,
  clusterDomain: string,
): GatewayAddress[] {
  if (clusterIP !== undefined && clusterIP !== '' && clusterIP !== 'None') {
    return [{ type: 'IPAddress', value: clusterIP }];
  }
  return [{ type: 'Hostname', value: `${name}.${namespace}.svc.${clusterDomain}` }];
}

export function programmedCondition(state: WaypointProgramState | undefined): Cond {
  if (state?.state === 'acked') {
    const n = state.connected;
    return {
      type: 'Programmed',
      status: 'True',
      reason: 'Programmed',
      message: `${n} waypoint prox${n === 1 ? 'y' : 'ies'} acknowledged the current listeners and clusters`,
    };
  }
  if (state?.state === 'rejected') {
    return {
      type: 'Programmed',
      status: 'False',
      reason: 'ProxyRejected',
      message: `${state.proxy ?? 'a proxy'}: ${state.detail ?? 'rejected the configuration'}`,
    };
  }
  const message =
    state?.state === 'pending'
      ? 'waiting for the waypoint proxies to acknowledge the current listeners and clusters'
      : 'no waypoint proxy of this Gateway is connected yet';
  return { type: 'Programmed', status: 'Unknown', reason: 'Pending', message };
}

export function carriedCondition(uncarried: readonly string[]): Cond {
  if (uncarried.length === 0) {
    return {
      type: CARRIED_CONDITION,
      status: 'True',
      reason: 'AllCarried',
      message: 'every bound service port is carried',
    };
  }
  return { type: CARRIED_CONDITION, status: 'False', reason: 'NotCarried', message: uncarried.join('; ') };
}

/** The conditions of an accepted Gateway, or of a rejected one (Accepted False only). */
export function gatewayConditions(
  rejection: GatewayRejection | undefined,
  state: WaypointProgramState | undefined,
  uncarried: readonly string[],
): Cond[] {
  if (rejection !== undefined) {
    return [
      { type: 'Accepted', status: 'False', reason: rejection.reason, message: rejection.message },
      { type: 'Programmed', status: 'False', reason: 'Invalid', message: 'the Gateway is not accepted' },
    ];
  }
  return [
    {
      type: 'Accepted',
      status: 'True',
      reason: 'Accepted',
      message: 'Handled by aeraki.io/waypoint-controller',
    },
    programmedCondition(state),
    carriedCondition(uncarried),
  ];
}

/** An Event on a Gateway (events.k8s.io/v1), created once per `key` while its cause lasts. */
export interface GatewayEvent {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly type: 'Warning' | 'Normal';
  readonly reason: 'Invalid' | 'ProxyRejected' | 'NotCarried';
  readonly action: 'Validate' | 'Program';
  readonly note: string;
}

/** The Events a Gateway's state calls for now. */
export function gatewayEvents(
  g: { readonly namespace: string; readonly name: string; readonly uid: string },
  rejection: GatewayRejection | undefined,
  state: WaypointProgramState | undefined,
  uncarried: readonly string[],
): GatewayEvent[] {
  const base = { namespace: g.namespace, name: g.name, uid: g.uid, type: 'Warning' as const };
  const at = `${g.namespace}/${g.name}`;
  if (rejection !== undefined) {
    return [
      {
        ...base,
        key: `${at}|Invalid|${rejection.message}`,
        reason: 'Invalid',
        action: 'Validate',
        note: rejection.message,
      },
    ];
  }
  const out: GatewayEvent[] = [];
  if (state?.state === 'rejected') {
    const c = programmedCondition(state);
    out.push({
      ...base,
      key: `${at}|ProxyRejected|${c.message}`,
      reason: 'ProxyRejected',
      action: 'Program',
      note: c.message,
    });
  }
  if (uncarried.length > 0) {
    const note = `cannot carry: ${uncarried.join('; ')}`;
    out.push({ ...base, key: `${at}|NotCarried|${note}`, reason: 'NotCarried', action: 'Program', note });
  }
  return out;
}
