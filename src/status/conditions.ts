/**
 * The desired conditions of one Aeraki object (pure):
 * - `Accepted`: False (reason `Invalid`) when the object is rejected or generation found errors in it, the message
 *   naming each field (`spec.routes[0].match: ...`); True with reason `AdmissionWouldRefuse` when it breaks a rule
 *   of admission hygiene (result.ts hygiene: the webhook and `aeraki validate` refuse it, the controller renders it
 *   as Aeraki's controller does), `AcceptedWithWarnings` (message: the warnings) or `Accepted` otherwise. Accepted
 *   stays True for such an object because it is in effect (what analyzers such as IST0171 read `Accepted` for); the
 *   reason says that admission would refuse it;
 * - `Programmed` (MetaRouters only): True when its routes are served (it is the MetaRouter used for the first host
 *   of a ServiceEntry with a MetaProtocol port); False with `Held` (rejected, its last valid version still
 *   served), `Invalid` (rejected, nothing served; the message names the ServiceEntries it holds), `Conflict`
 *   (another MetaRouter for its host is used),
 *   `NoServiceEntry` or `NoMetaProtocolPort`; Unknown with `Pending` while the store has not read it.
 */
import type { ConfigView } from '../model/view.ts';
import type { MetaRouter } from '../model/objects.ts';
import { detectProtocol } from '../model/protocol.ts';
import {
  admissionOnly,
  refOf,
  refString,
  severityOf,
  type ConfigIssue,
  type ObjectRef,
} from '../model/result.ts';
import type { ConditionStatus } from './types.ts';

/** A condition without its transition time and generation (the planner adds them). */
export interface DesiredCondition {
  readonly type: 'Accepted' | 'Programmed';
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
}

/** metav1.Condition's message limit. */
const MAX_MESSAGE = 32768;

export function refKey(ref: ObjectRef): string {
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** `path: message` of each issue, joined by `; `, cut to the Condition limit. */
export function issuesMessage(issues: readonly ConfigIssue[]): string {
  const text = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 3)}...` : text;
}

export function acceptedCondition(
  rejected: readonly ConfigIssue[] | undefined,
  issues: readonly ConfigIssue[],
): DesiredCondition {
  const errors = [...(rejected ?? []), ...issues].filter((i) => severityOf(i) === 'error');
  if (rejected !== undefined || errors.length > 0) {
    return { type: 'Accepted', status: 'False', reason: 'Invalid', message: issuesMessage(errors) };
  }
  const warnings = issues.filter((i) => severityOf(i) === 'warning');
  if (warnings.some(admissionOnly)) {
    return {
      type: 'Accepted',
      status: 'True',
      reason: 'AdmissionWouldRefuse',
      message: `admission would refuse it; rendered as Aeraki's controller renders it: ${issuesMessage(warnings)}`,
    };
  }
  if (warnings.length > 0) {
    return {
      type: 'Accepted',
      status: 'True',
      reason: 'AcceptedWithWarnings',
      message: issuesMessage(warnings),
    };
  }
  return { type: 'Accepted', status: 'True', reason: 'Accepted', message: '' };
}

/** Which MetaRouter serves routes: for each used MetaRouter, whether its ServiceEntry has a MetaProtocol port. */
export function servedMetaRouters(view: ConfigView): Map<MetaRouter, boolean> {
  const out = new Map<MetaRouter, boolean>();
  for (const se of view.serviceEntries()) {
    const host = se.spec.hosts[0];
    const mr = host ? view.configForHost(host, se.metadata.namespace).metaRouter : undefined;
    if (!mr) continue;
    const meta = se.spec.ports.some((p) => detectProtocol(p.name) === 'metaprotocol');
    out.set(mr, (out.get(mr) ?? false) || meta);
  }
  return out;
}

function programmed(status: ConditionStatus, reason: string, message: string): DesiredCondition {
  return { type: 'Programmed', status, reason, message };
}

export function programmedCondition(
  ref: ObjectRef,
  view: ConfigView,
  served: ReadonlyMap<MetaRouter, boolean>,
  rejected: boolean,
  holding: readonly ObjectRef[] = [],
): DesiredCondition {
  const mr = view.get('MetaRouter', ref.namespace, ref.name);
  if (rejected) {
    const held = holding.length > 0 ? `: held ${holding.map(refString).join(', ')}` : '';
    return mr
      ? programmed('False', 'Held', 'the spec is invalid: the last valid version is still served')
      : programmed(
          'False',
          'Invalid',
          'the spec is invalid and no valid version is known: the hosts and Gateways it binds are held ' +
            `(their routes withheld, their filters kept)${held}`,
        );
  }
  if (!mr) return programmed('Unknown', 'Pending', 'not read by the controller yet');
  const host = mr.spec.hosts[0] ?? '';
  const quoted = JSON.stringify(host);
  const winner = view.configForHost(host, mr.metadata.namespace).metaRouter;
  if (winner && winner !== mr) {
    return programmed('False', 'Conflict', `${refString(refOf(winner))} is used for host ${quoted}`);
  }
  const meta = served.get(mr);
  if (meta === undefined) {
    return programmed('False', 'NoServiceEntry', `no ServiceEntry has ${quoted} as its first host`);
  }
  if (!meta) {
    return programmed(
      'False',
      'NoMetaProtocolPort',
      `the ServiceEntry of ${quoted} has no tcp-metaprotocol-* port`,
    );
  }
  return programmed('True', 'Programmed', `routes are served for host ${quoted}`);
}
