/**
 * Say what is not rendered: a valid ServiceEntry (or Gateway) whose host (or Gateway) is held by an invalid object
 * of its own namespace it depends on (ConfigView.hostHolders: a VirtualService or DestinationRule; gatewayHolders:
 * a MetaRouter, or one of another namespace while no valid MetaRouter binds the Gateway; each rejected with no
 * valid version) is left out of the output; the warning names it and each object holding it. Nothing else of
 * another namespace holds it, and a MetaRouter never holds a ServiceEntry (DESIGN habit 17). `render` prints it, `serve` shows it in /debug/config, the status of the holding object and an Event
 * on the held one.
 */
import { refOf, refString, warning, type ConfigIssue, type ObjectRef } from './result.ts';
import type { Gateway, ServiceEntry } from './objects.ts';
import type { ConfigView } from './view.ts';

/**
 * The rejected objects holding `source` (any of a ServiceEntry's hosts, or a Gateway: ConfigView.gatewayHolders),
 * without repeats, sorted.
 */
export function holdersOf(view: ConfigView, source: ServiceEntry | Gateway): ObjectRef[] {
  const ns = source.metadata.namespace;
  const refs =
    source.kind === 'Gateway'
      ? view.gatewayHolders(ns, source.metadata.name)
      : source.spec.hosts.flatMap((h) => view.hostHolders(h, ns));
  const byText = new Map(refs.map((r) => [refString(r), r]));
  return [...byText.keys()].sort().map((k) => byText.get(k) as ObjectRef);
}

/**
 * `ServiceEntry shop/orders: spec.hosts: held: VirtualService shop/orders is invalid: ...`: the warning of a
 * source left out of the output because `holders` are invalid, at the field that binds it to them (a
 * ServiceEntry's hosts; a Gateway's servers, which MetaRouters bind by the Gateway's name).
 */
export function heldIssue(source: ServiceEntry | Gateway, holders: readonly ObjectRef[]): ConfigIssue {
  const names = holders.map(refString).join(', ');
  const verb = holders.length === 1 ? 'is' : 'are';
  return warning(
    refOf(source),
    source.kind === 'Gateway' ? 'spec.servers' : 'spec.hosts',
    `held: ${names} ${verb} invalid: ${SERVE_TAIL}`,
  );
}

/** What a running controller does meanwhile: `serve` keeps what it wrote before. */
const SERVE_TAIL = 'not rendered until fixed (what was written before stays)';
/** An offline run has written nothing before: the output leaves the object out. */
const OFFLINE_TAIL = 'left out of the output until fixed';

/**
 * The issues of an offline run (`render`, `validate`, `analyze`): a held warning says what the output leaves out,
 * not what serve keeps written.
 */
export function offlineIssues(issues: readonly ConfigIssue[]): ConfigIssue[] {
  return issues.map((i) =>
    isHeldIssue(i) && i.message.endsWith(SERVE_TAIL)
      ? { ...i, message: i.message.slice(0, -SERVE_TAIL.length) + OFFLINE_TAIL }
      : i,
  );
}

/** True when `i` is a held warning (heldIssue). */
export function isHeldIssue(i: ConfigIssue): boolean {
  return i.message.startsWith('held: ');
}
