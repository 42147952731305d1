// The debug page's pure view of what stands in for current config: EnvoyFilters kept from before, the last good
// read of a broken file or the last valid version of a rejected object in effect; of what proxies ask for and are
// not sent (NOT SENT); of the plugins' descriptions of their objects (/debug/config `settings`: the page names no
// plugin kind); of warnings and problems (each object named once, as the subject); and the filter box's match.
// No DOM, no fetch; every field is read defensively.

import { listenerProblems } from './view-istiod.js';

const list = (v) => (Array.isArray(v) ? v : []);
const byText = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const refText = (r) => `${r?.kind ?? '?'} ${r?.namespace ?? '?'}/${r?.name ?? '?'}`;

/** The EnvoyFilters kept in place though not desired now (/debug/envoyfilters `keptFilters`), by source object. */
export function keptBySource(envoyfilters) {
  const out = new Map();
  for (const k of list(envoyfilters?.keptFilters)) {
    const source = String(k?.source ?? '');
    if (!out.has(source)) out.set(source, []);
    out.get(source).push({
      name: String(k?.name ?? '?'),
      namespace: String(k?.namespace ?? '?'),
      kept: true,
      why: String(k?.why ?? 'unknown'),
    });
  }
  return out;
}

/** Is the object `ref` (`{kind, namespace, name}`) stored with a valid version (its last good one)? */
function hasValidVersion(config, ref) {
  return list(config?.objects?.[ref?.kind]).some(
    (o) => o?.metadata?.namespace === ref?.namespace && o?.metadata?.name === ref?.name,
  );
}

/**
 * Why the config in effect is not all current, as lines (empty: it is): broken files whose last good read is in
 * effect, rejected objects whose last valid version is, EnvoyFilters kept while their source is held or failing.
 */
export function lastGoodOf(config, envoyfilters) {
  const out = [];
  const files = list(config?.files?.errors).filter((f) => f?.lastGood);
  if (files.length > 0) {
    const n = files.length;
    out.push(`${n} file${n === 1 ? '' : 's'} cannot be read: the last good read is in effect`);
  }
  const rejected = list(config?.rejected).filter((r) => hasValidVersion(config, r?.ref));
  if (rejected.length > 0) {
    const n = rejected.length;
    out.push(`${n} invalid object${n === 1 ? '' : 's'}: the last valid version is in effect`);
  }
  const kept = list(envoyfilters?.keptFilters).length;
  if (kept > 0) out.push(`${kept} EnvoyFilter${kept === 1 ? '' : 's'} kept from before`);
  return out;
}

/** The line a rejected object gets when its last valid version stays in effect (none otherwise). */
export function rejectedLines(config, r) {
  return hasValidVersion(config, r?.ref) ? ['its last valid version is in effect'] : [];
}

/**
 * Per route a proxy subscribes to and was not sent (/debug/proxies `notSent`, istioctl's NOT SENT), the proxies
 * asking for it: `[{ route, proxies: [id] }]` by route.
 */
export function notSentRoutes(proxies) {
  const byRoute = new Map();
  for (const p of list(proxies?.proxies)) {
    for (const route of list(p?.notSent)) {
      if (!byRoute.has(route)) byRoute.set(route, []);
      byRoute.get(route).push(String(p?.nodeId || p?.peer || '?'));
    }
  }
  return [...byRoute.entries()]
    .sort(([a], [b]) => byText(a, b))
    .map(([route, ids]) => ({ route: String(route), proxies: ids }));
}

/** The requested routes nobody serves as problems (`kind: notsent`). */
export function notSentProblems(proxies) {
  return notSentRoutes(proxies).map((u) => ({
    kind: 'notsent',
    subject: `route ${u.route}: not sent to ${u.proxies.length} prox${u.proxies.length === 1 ? 'y' : 'ies'} asking for it`,
    lines: [`no route of this name is served; first: ${u.proxies[0]}`],
  }));
}

/**
 * The generation issues (/debug/envoyfilters `issueList`: severity, object, text) split into errors (problems)
 * and warnings, each once per object and text; the text without the object's name (the subject says it). Without
 * `issueList` (an older controller), every `issues` line is an error whose subject is the text up to `:`.
 */
export function issuesOf(envoyfilters, shown) {
  const items = Array.isArray(envoyfilters?.issueList)
    ? envoyfilters.issueList.map((i) => ({
        severity: i?.severity === 'warning' ? 'warning' : 'error',
        object: String(i?.object ?? '?'),
        text: String(i?.text ?? ''),
      }))
    : list(envoyfilters?.issues).map((i) => {
        const [object, ...rest] = String(i).split(': ');
        return { severity: 'error', object, text: rest.join(': ') };
      });
  const errors = [];
  const warnings = [];
  const seen = new Set();
  for (const i of items) {
    const whole = `${i.object}: ${i.text}`;
    if (shown.has(whole) || seen.has(whole)) continue;
    seen.add(whole);
    const item = { kind: i.severity === 'warning' ? 'warning' : 'issue', subject: i.object, lines: [i.text] };
    (i.severity === 'warning' ? warnings : errors).push(item);
  }
  return { errors, warnings };
}

/** Does `host` (of an object in `ns`) name `serviceHost`? Exact, or a short name in the same namespace. */
export function hostMatches(host, ns, serviceHost) {
  const h = String(host ?? '').toLowerCase();
  const s = String(serviceHost ?? '').toLowerCase();
  return h === s || (!h.includes('.') && s.startsWith(`${h}.${ns}.`));
}

/**
 * The plugins' descriptions (/debug/config `settings`) that apply to a service: by one of its hosts, or by one of
 * its ports' protocols in its namespace (`*`: any). `[{ ref, lines: [{label, value}], changedAt }]`.
 */
export function settingsFor(settings, service) {
  const out = [];
  for (const s of list(settings)) {
    const to = s?.appliesTo ?? {};
    const ns = s?.ref?.namespace ?? '';
    const applies = Array.isArray(to.hosts)
      ? to.hosts.some((h) => service.hosts.some((sh) => hostMatches(h, ns, sh)))
      : service.ports.some((p) => p.protocol === to.protocol) &&
        (to.namespace === '*' || to.namespace === service.namespace);
    if (!applies) continue;
    out.push({
      ref: refText(s.ref),
      lines: list(s.lines).map((l) => ({ label: String(l?.label ?? ''), value: String(l?.value ?? '') })),
      changedAt: s.changedAt === undefined ? undefined : String(s.changedAt),
    });
  }
  return out;
}

/** The time the controller saw `Kind/ns/name` change (/debug/config `changedAt`), or undefined. */
export function changedAtOf(config, kind, namespace, name) {
  const at = config?.changedAt?.[`${kind}/${namespace}/${name}`];
  return at === undefined ? undefined : String(at);
}

/**
 * The filter box's match: every word of `query` (case ignored) occurs in `text`. An empty query matches all.
 */
export function matchesFilter(text, query) {
  const words = String(query ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  const t = String(text ?? '').toLowerCase();
  return words.every((w) => t.includes(w));
}

/** The refresh intervals offered, in seconds (0: off, the default). */
export const REFRESH_CHOICES = [0, 5, 15, 60];

/** The interval in `raw` (a URL parameter) when it is one of REFRESH_CHOICES; else 0 (off). */
export function refreshOf(raw) {
  const n = Number(raw);
  return REFRESH_CHOICES.includes(n) ? n : 0;
}

/** The held warnings /debug/config lists already: generation repeats them (shown once). */
export function shownLines(config) {
  return new Set(list(config?.heldObjects).map(String));
}

/**
 * Everything held, rejected or failing, as `{ kind, subject, lines }` (kind: rejected, held, file, issue (a
 * generation error), notsent (a route proxies ask for is not served), listener (istiod's proxies reject a source
 * object's listeners, with `reason` and its `word`), proxy (RDS)). Warnings are apart (`warnings`).
 */
export function problemsOf(config, issueErrors, proxies, routes) {
  const out = [];
  for (const r of list(config?.rejected)) {
    const subject = refText(r?.ref);
    // The subject names the object: its issues without the name again.
    const issues = list(r?.issues).map((i) => String(i).replace(`${subject}: `, ''));
    out.push({ kind: 'rejected', subject, lines: [...issues, ...rejectedLines(config, r)] });
  }
  for (const g of list(config?.heldGateways)) {
    out.push({
      kind: 'held',
      subject: `Gateway ${g?.gateway}`,
      lines: list(g?.by).map((b) => `held by ${refText(b)}`),
    });
  }
  for (const h of list(config?.heldObjects)) {
    const [subject, ...rest] = String(h).split(': ');
    out.push({ kind: 'held', subject, lines: [rest.join(': ')] });
  }
  for (const f of list(config?.files?.errors)) {
    const at = f?.line ? `:${f.line}${f.column ? `:${f.column}` : ''}` : '';
    const restored = f?.restored
      ? ['its last good read of before the restart (state file) is in effect']
      : f?.lastGood
        ? ['its last good read is in effect']
        : [];
    out.push({ kind: 'file', subject: `${f?.path ?? '?'}${at}`, lines: [f?.message ?? '', ...restored] });
  }
  for (const u of list(routes?.unservedRoutes)) {
    out.push({
      kind: 'held',
      subject: `EnvoyFilter ${u?.envoyFilter ?? '?'}`,
      lines: [`names RDS route ${u?.route ?? '?'}, which is not served`],
    });
  }
  if (config?.files?.partial) {
    out.push({
      kind: 'file',
      subject: 'config directory',
      lines: ['a file was never read well: deletions are held'],
    });
  }
  out.push(...issueErrors);
  out.push(...notSentProblems(proxies));
  out.push(...listenerProblems(proxies?.listenerRejections));
  for (const s of list(proxies?.routes)) {
    if (!(s?.rejected > 0)) continue;
    const first = s.firstRejection;
    const line = first ? `first: ${first.proxy} rejected ${first.version}: ${first.detail}` : '';
    out.push({
      kind: 'proxy',
      subject: `route ${s.name}: rejected by ${s.rejected} prox${s.rejected === 1 ? 'y' : 'ies'}`,
      lines: [line],
    });
  }
  return out;
}
