// The debug page's pure part: from the /debug/* JSON documents to a plain view model (no DOM, no fetch), so node
// can test it. Every field is read defensively: documents may lack a section (no registries) or carry fields this
// page does not know (they are ignored).

import { istiodOf, istiodStateOf } from './view-istiod.js';
import {
  changedAtOf,
  hostMatches,
  issuesOf as generationIssues,
  keptBySource,
  lastGoodOf,
  problemsOf,
  settingsFor,
  shownLines,
} from './view-state.js';

export { reasonWord } from './view-istiod.js';

/**
 * The protocol of a port name as src/model/protocol.ts detects it: the second `-` segment, lower-cased, when it is
 * one of `detected` (the names /debug/protocols lists); for MetaProtocol the third segment (case kept) is the
 * application protocol. `undefined` when none is selected.
 */
export function protocolOf(portName, detected) {
  const parts = String(portName ?? '').split('-');
  const second = parts[1]?.toLowerCase();
  if (second === undefined || !list(detected).includes(second)) return undefined;
  if (second !== 'metaprotocol') return second;
  return parts[2] ? `metaprotocol-${parts[2]}` : 'metaprotocol';
}

/**
 * A traffic split as bars: one entry per destination with its weight and its share in percent (one decimal).
 * Weights missing on every destination split evenly (one destination: 100 %); a missing weight among given ones
 * counts 0.
 */
export function splitOf(destinations) {
  const list = Array.isArray(destinations) ? destinations : [];
  const given = list.some((d) => typeof d?.weight === 'number');
  const weights = list.map((d) => (given ? (typeof d?.weight === 'number' ? d.weight : 0) : 1));
  const total = weights.reduce((a, b) => a + b, 0);
  return list.map((d, i) => ({
    label: destinationLabel(d?.destination),
    weight: weights[i],
    percent: total > 0 ? Math.round((weights[i] / total) * 1000) / 10 : 0,
  }));
}

/** `host` or `host:port (subset)` as a label. */
export function destinationLabel(dest) {
  if (!dest || typeof dest !== 'object') return '?';
  const port = dest.port?.number ? `:${dest.port.number}` : '';
  return `${dest.host ?? '?'}${port}${dest.subset ? ` (${dest.subset})` : ''}`;
}

/** `inbound`, `outbound` or `gateway`: from the patches' context, the listener matched, else the name. */
export function directionOf(envoyFilter) {
  const patches = envoyFilter?.spec?.configPatches ?? [];
  for (const p of patches) {
    const context = p?.match?.context;
    if (context === 'SIDECAR_INBOUND') return 'inbound';
    if (context === 'SIDECAR_OUTBOUND') return 'outbound';
    if (context === 'GATEWAY') return 'gateway';
    if (p?.match?.listener?.name === 'virtualInbound') return 'inbound';
  }
  const name = envoyFilter?.metadata?.name ?? '';
  if (name.includes('-inbound-')) return 'inbound';
  if (name.includes('-gateway-')) return 'gateway';
  return 'outbound';
}

const refText = (r) => `${r?.kind ?? '?'} ${r?.namespace ?? '?'}/${r?.name ?? '?'}`;
const keyOf = (o) => `${o?.metadata?.namespace ?? ''}/${o?.metadata?.name ?? ''}`;
const list = (v) => (Array.isArray(v) ? v : []);
const byText = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/** A route's match as `key=value` words (MetaRouter attributes, VirtualService http matches). */
function matchText(match) {
  const words = [];
  const add = (key, m) => {
    if (m === null || typeof m !== 'object') words.push(`${key} present`);
    else for (const [op, v] of Object.entries(m)) words.push(`${key} ${op} ${String(v)}`);
  };
  for (const m of Array.isArray(match) ? match : match ? [match] : []) {
    const fields = m?.attributes ?? m ?? {};
    for (const [k, v] of Object.entries(fields).sort(([a], [b]) => byText(a, b))) {
      if (k === 'headers' && v && typeof v === 'object') for (const [h, hv] of Object.entries(v)) add(h, hv);
      else add(k, v);
    }
  }
  return words.join(', ');
}

/** One route of a MetaRouter or a VirtualService: name, match, split, mirror. */
function routeView(r, i) {
  return {
    name: r?.name || `#${i + 1}`,
    match: matchText(r?.match),
    split: splitOf(r?.route),
    mirror: r?.mirror
      ? {
          to: destinationLabel(r.mirror),
          percent: r.mirrorPercentage?.value ? r.mirrorPercentage.value : 100,
        }
      : undefined,
  };
}

/** The rate limits of a MetaRouter as lines of text. */
function rateLimitsOf(spec) {
  const out = [];
  const bucket = (b) => (b ? `${b.tokensPerFill}/${b.fillInterval} (burst ${b.maxTokens})` : '');
  const local = spec?.localRateLimit;
  if (local?.tokenBucket) out.push(`local: ${bucket(local.tokenBucket)}`);
  for (const c of list(local?.conditions))
    out.push(`local when ${matchText(c?.match)}: ${bucket(c?.tokenBucket)}`);
  const global = spec?.globalRateLimit;
  if (global) {
    const descriptors = list(global.descriptors).map((d) => `${d?.descriptorKey}=${d?.property}`);
    out.push(`global: domain ${global.domain} via ${global.rateLimitService} (${descriptors.join(', ')})`);
  }
  return out;
}

/** The issues of a rejected object, by `Kind ns/name`. */
function rejectedIssues(config) {
  const map = new Map();
  for (const r of list(config?.rejected)) map.set(refText(r?.ref), list(r?.issues).map(String));
  return map;
}

/**
 * The view model of the page from the documents (each may be undefined when it could not be fetched):
 * `{ synced, groups: [{ protocol, services }], problems, istiod, registries }`, groups sorted by protocol, services
 * by namespace/name. A service carries istiod's view of its listeners (`listenerRejections`, `listenerProxies`:
 * the `listenerRejections` of /debug/proxies whose source object is the service); `istiod` is the syncz client's
 * state as a line of text.
 */
export function buildView(docs) {
  const { config, envoyfilters, routes, proxies, registries, protocols } = docs ?? {};
  const detected = list(protocols?.detected);
  const objects = config?.objects ?? {};
  const issuesOf = rejectedIssues(config);
  const sources = [...list(objects.ServiceEntry), ...list(objects.Service)];
  const filtersBySource = new Map();
  for (const ef of list(envoyfilters?.desired)) {
    const source = ef?.metadata?.annotations?.['aeraki.io/source'] ?? '';
    if (!filtersBySource.has(source)) filtersBySource.set(source, []);
    filtersBySource.get(source).push({
      name: ef?.metadata?.name ?? '?',
      namespace: ef?.metadata?.namespace ?? '?',
      direction: directionOf(ef),
    });
  }
  const kept = keptBySource(envoyfilters);
  const { errors, warnings } = generationIssues(envoyfilters, shownLines(config));
  const served = new Map(list(routes?.routes).map((r) => [r?.name, r?.version]));
  const summaries = new Map(list(proxies?.routes).map((s) => [s?.name, s]));
  const groups = new Map();
  for (const se of sources) {
    const hosts = list(se?.spec?.hosts).map(String);
    const ports = list(se?.spec?.ports).map((p) => ({
      number: p?.number,
      name: p?.name ?? '',
      protocol: protocolOf(p?.name, detected),
    }));
    const handled = ports.filter((p) => p.protocol);
    if (handled.length === 0) continue;
    const routers = [];
    for (const kind of ['MetaRouter', 'VirtualService']) {
      for (const o of list(objects[kind])) {
        const oNs = o?.metadata?.namespace ?? '';
        if (!list(o?.spec?.hosts).some((h) => hosts.some((s) => hostMatches(h, oNs, s)))) continue;
        routers.push({
          ref: `${kind} ${keyOf(o)}`,
          changedAt: changedAtOf(config, kind, oNs, o?.metadata?.name),
          routes: list(kind === 'MetaRouter' ? o.spec.routes : o.spec.http).map(routeView),
          rateLimits: kind === 'MetaRouter' ? rateLimitsOf(o.spec) : [],
        });
      }
    }
    const routeNames = hosts.flatMap((h) => handled.map((p) => `${h}_${p.number}`));
    const rds = routeNames
      .filter((n) => served.has(n) || summaries.has(n))
      .map((n) => ({ name: n, version: served.get(n), served: served.has(n), acks: summaries.get(n) }));
    const proxyStates = [];
    for (const p of list(proxies?.proxies)) {
      for (const r of list(p?.routes)) {
        if (!routeNames.includes(r?.name)) continue;
        proxyStates.push({
          proxy: p?.nodeId || p?.peer || '?',
          route: r.name,
          state: r.state ?? 'pending',
          detail: r.rejected?.errorDetail,
        });
      }
      for (const name of list(p?.notSent)) {
        if (routeNames.includes(name))
          proxyStates.push({ proxy: p?.nodeId || p?.peer || '?', route: name, state: 'not sent' });
      }
    }
    // A host is held for the ServiceEntries of the holder's own namespace only.
    const heldBy = list(config?.held)
      .filter((h) => hosts.includes(h?.host))
      .flatMap((h) =>
        list(h?.by)
          .filter((b) => b?.namespace === se?.metadata?.namespace)
          .map(refText),
      );
    const held = [...new Set(heldBy)].sort(byText).map((by) => ({ by, issues: issuesOf.get(by) ?? [] }));
    const source = `${se?.kind ?? 'ServiceEntry'}/${keyOf(se)}`;
    const istiod = istiodOf(proxies?.listenerRejections, source);
    const key = `${se?.kind ?? 'ServiceEntry'} ${keyOf(se)}`;
    const namespace = se?.metadata?.namespace ?? '';
    const service = {
      key,
      id: keyOf(se),
      namespace,
      changedAt: changedAtOf(config, se?.kind ?? 'ServiceEntry', namespace, se?.metadata?.name),
      hosts,
      ports: handled,
      envoyFilters: [
        ...list(filtersBySource.get(source)),
        // A kept filter's spec is not read: its direction from its name.
        ...list(kept.get(source)).map((f) => ({
          ...f,
          direction: directionOf({ metadata: { name: f.name } }),
        })),
      ].sort((a, b) => byText(a.name, b.name)),
      routers,
      rds,
      proxies: proxyStates,
      held,
      rejectedByProxies: proxyStates.some((s) => s.state === 'rejected'),
      listenerRejections: istiod.rejections,
      listenerProxies: istiod.proxies,
      warnings: warnings.filter((w) => w.subject === key).flatMap((w) => w.lines),
    };
    service.settings = settingsFor(config?.settings, service);
    for (const protocol of new Set(handled.map((p) => p.protocol))) {
      if (!groups.has(protocol)) groups.set(protocol, []);
      groups.get(protocol).push(service);
    }
  }
  return {
    synced: config?.synced === true,
    groups: [...groups.entries()]
      .sort(([a], [b]) => byText(a, b))
      .map(([protocol, services]) => ({ protocol, services: services.sort((a, b) => byText(a.id, b.id)) })),
    problems: problemsOf(config, errors, proxies, routes),
    warnings,
    lastGood: lastGoodOf(config, envoyfilters),
    istiod: istiodStateOf(proxies),
    registries: registries ? list(registries.registries) : undefined,
  };
}
