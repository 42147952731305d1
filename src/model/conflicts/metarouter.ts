/**
 * Conflicts between MetaProtocol objects that are each valid alone, found over the whole config view: warnings,
 * never errors (the lookups still pick one object deterministically, D6). Run by generateAll and by the route
 * builder, so `render` shows them with or without `--routes`.
 *
 * - Two or more MetaRouters for one host (after FQDN normalisation): the oldest is used (configForHost); each
 *   other one gets a warning naming the one used, and the one used a warning naming each other one.
 * - A MetaRouter whose host is the first host of no ServiceEntry (or Service): it configures no sidecar and no
 *   route is served for it.
 * - Two or more ApplicationProtocols for one protocol with different codecs: the oldest is used (codecFor), a
 *   warning on each side; an ApplicationProtocol for a built-in protocol (dubbo, thrift) with another codec is
 *   ignored, a warning on it.
 */
import { BUILTIN_CODECS } from '../constants.ts';
import type { ApplicationProtocol, MetaRouter } from '../objects.ts';
import { compareOldestFirst } from '../order.ts';
import { refOf, refString, warning, type ConfigIssue } from '../result.ts';
import type { ConfigView } from '../view.ts';

/** Every conflict warning of the view: MetaRouters (in namespace/name order), then ApplicationProtocols. O(n). */
export function metaProtocolConflicts(view: ConfigView): ConfigIssue[] {
  return [...metaRouterConflicts(view), ...applicationProtocolConflicts(view.applicationProtocols())];
}

const HOST_PATH = 'spec.hosts[0]';

function metaRouterConflicts(view: ConfigView): ConfigIssue[] {
  const routers = view.list('MetaRouter');
  if (routers.length === 0) return [];
  // The MetaRouter used for each ServiceEntry's host: the one chosen for every MetaRouter of that host.
  const used = new Set<MetaRouter>();
  for (const se of view.serviceEntries()) {
    const host = se.spec.hosts[0];
    const mr = host ? view.configForHost(host, se.metadata.namespace).metaRouter : undefined;
    if (mr) used.add(mr);
  }
  return routers.flatMap((mr) => metaRouterConflictsOf(view, mr, (winner) => used.has(winner)));
}

/**
 * The conflict warnings of one MetaRouter: another one used for its host (both sides), or no ServiceEntry using
 * the MetaRouter chosen for its host (`isUsed`: some ServiceEntry's first host finds it through configForHost).
 */
export function metaRouterConflictsOf(
  view: ConfigView,
  mr: MetaRouter,
  isUsed: (winner: MetaRouter) => boolean,
): ConfigIssue[] {
  const host = mr.spec.hosts[0];
  if (host === undefined) return [];
  const out: ConfigIssue[] = [];
  const winner = view.configForHost(host, mr.metadata.namespace).metaRouter ?? mr;
  if (winner !== mr) {
    const quoted = JSON.stringify(host);
    out.push(
      {
        ...warning(
          refOf(mr),
          HOST_PATH,
          `${refString(refOf(winner))} is also for host ${quoted} and is used (the oldest wins): this one is ignored`,
        ),
        rule: 'metarouter-host-claimed',
      },
      {
        ...warning(
          refOf(winner),
          HOST_PATH,
          `${refString(refOf(mr))} is also for host ${quoted}: this one is used (the oldest wins), that one is ignored`,
        ),
        rule: 'metarouter-host-claimed',
      },
    );
  }
  if (!isUsed(winner)) {
    out.push({
      ...warning(
        refOf(mr),
        HOST_PATH,
        `no ServiceEntry has ${JSON.stringify(host)} as its first host: this MetaRouter configures no ` +
          'sidecar and no MetaProtocol routes are served for it',
      ),
      rule: 'metarouter-host-not-found',
    });
  }
  return out;
}

export function applicationProtocolConflicts(protocols: readonly ApplicationProtocol[]): ConfigIssue[] {
  const byProtocol = new Map<string, ApplicationProtocol[]>();
  for (const ap of protocols) {
    const list = byProtocol.get(ap.spec.protocol);
    if (list) list.push(ap);
    else byProtocol.set(ap.spec.protocol, [ap]);
  }
  const out: ConfigIssue[] = [];
  for (const [protocol, list] of byProtocol) {
    const quoted = JSON.stringify(protocol);
    if (Object.hasOwn(BUILTIN_CODECS, protocol)) {
      const builtin = BUILTIN_CODECS[protocol] ?? '';
      for (const ap of list) {
        if (ap.spec.codec === builtin) continue;
        const message = `protocol ${quoted} is built in with codec ${JSON.stringify(builtin)}: this codec is ignored`;
        out.push(warning(refOf(ap), 'spec.codec', message));
      }
      continue;
    }
    const [winner, ...others] = [...list].sort(compareOldestFirst);
    if (winner === undefined) continue;
    for (const ap of others) {
      if (ap.spec.codec === winner.spec.codec) continue;
      out.push(
        warning(
          refOf(ap),
          'spec.codec',
          `${refString(refOf(winner))} also defines protocol ${quoted} with codec ` +
            `${JSON.stringify(winner.spec.codec)} and is used (the oldest wins): this one is ignored`,
        ),
        warning(
          refOf(winner),
          'spec.codec',
          `${refString(refOf(ap))} also defines protocol ${quoted} with codec ` +
            `${JSON.stringify(ap.spec.codec)}: this one is used (the oldest wins), that one is ignored`,
        ),
      );
    }
  }
  return out;
}
