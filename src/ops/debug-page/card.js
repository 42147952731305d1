// The debug page's service card: a handled service with its EnvoyFilters, routes (splits as bars), istiod's view
// of its listeners, the route configurations served over RDS and the proxies that answered them.
import { badge, el, reasonBadge } from './dom.js';

function splitBar(split) {
  const bar = el('div', {
    class: 'bar',
    role: 'img',
    'aria-label': split.map((s) => `${s.label} ${s.percent}%`).join(', '),
  });
  split.forEach((s, i) => {
    const seg = el('span', { class: `segment segment-${i % 4}` }, `${s.percent}%`);
    seg.style.width = `${s.percent}%`;
    bar.append(seg);
  });
  const legend = el(
    'ul',
    { class: 'legend' },
    split.map((s, i) =>
      el(
        'li',
        { 'data-percent': s.percent },
        el('span', { class: `swatch segment-${i % 4}` }),
        `${s.percent}% ${s.label}`,
      ),
    ),
  );
  return el('div', { class: 'split' }, bar, legend);
}

/** `changed <ISO time>` in small print, or nothing when the time is not known. */
const changed = (at) => (at ? el('span', { class: 'muted changed' }, ` changed ${at}`) : undefined);

function routerSection(router) {
  return el(
    'div',
    { class: 'router' },
    el('h4', {}, router.ref, changed(router.changedAt)),
    router.routes.map((r) =>
      el(
        'div',
        { class: 'route', 'data-route': r.name },
        el(
          'p',
          { class: 'route-name' },
          r.name,
          r.match ? el('span', { class: 'muted' }, ` when ${r.match}`) : undefined,
        ),
        splitBar(r.split),
        r.mirror ? el('p', { class: 'mirror' }, `mirror ${r.mirror.percent}% to ${r.mirror.to}`) : undefined,
      ),
    ),
    router.rateLimits.length > 0
      ? el(
          'ul',
          { class: 'ratelimits' },
          router.rateLimits.map((l) => el('li', {}, `rate limit ${l}`)),
        )
      : undefined,
  );
}

/** How many rejecting proxies a card lists (`/debug/proxies` and `aeraki proxy-status --proxies` have them all). */
const PROXIES_SHOWN = 10;

/**
 * istiod's view of a service's listeners: per reason, how many proxies and the first error; then the rejecting
 * proxies (the first PROXIES_SHOWN) with their listeners, and their error where it is not the first one shown.
 */
function listenerSection(s) {
  const firstErrors = new Set(s.listenerRejections.map((r) => r.firstError));
  const shown = s.listenerProxies.slice(0, PROXIES_SHOWN);
  const more = s.listenerProxies.length - shown.length;
  const where = (ns) =>
    ns.length > 0 ? ` in ${ns.length === 1 ? 'namespace' : 'namespaces'} ${ns.join(', ')}` : '';
  return [
    el('h4', {}, 'Listeners, as istiod reports them'),
    s.listenerRejections.map((r) =>
      el(
        'div',
        { class: 'problem problem-listener', 'data-listener-rejection': r.reason },
        reasonBadge(r),
        ` by ${r.proxies} prox${r.proxies === 1 ? 'y' : 'ies'}${where(r.namespaces)}`,
        r.filter ? el('p', {}, `no implementation of ${r.filter}`) : undefined,
        el('p', { class: 'detail' }, `first: ${r.firstProxy}: ${r.firstError}`),
      ),
    ),
    shown.length > 0
      ? el(
          'ul',
          { class: 'proxies listener-proxies' },
          shown.map((p) =>
            el(
              'li',
              { 'data-listener-proxy': p.id },
              reasonBadge(p),
              ` ${p.id}`,
              p.listeners.length > 0
                ? el('span', { class: 'muted' }, ` (${p.listeners.join(', ')})`)
                : undefined,
              p.detail && !firstErrors.has(p.detail) ? el('p', { class: 'detail' }, p.detail) : undefined,
            ),
          ),
          more > 0
            ? el('li', { class: 'muted' }, `and ${more} more (/debug/proxies, aeraki proxy-status --proxies)`)
            : undefined,
        )
      : undefined,
  ];
}

/** What the plugins say an object applying to the service sets (the page knows no plugin kind). */
function settingsSection(settings) {
  return [
    el('h4', {}, 'Settings'),
    settings.map((o) =>
      el(
        'div',
        { class: 'settings', 'data-settings': o.ref },
        el('p', { class: 'settings-ref' }, o.ref, changed(o.changedAt)),
        el(
          'ul',
          {},
          o.lines.map((l) => el('li', {}, el('span', { class: 'label' }, `${l.label}:`), ` ${l.value}`)),
        ),
      ),
    ),
  ];
}

const KEPT_WHY = {
  held: 'kept while its source is held',
  failed: 'kept while its source fails to generate',
  unknown: 'kept: deletions are held',
};

function filtersSection(filters) {
  const kept = filters.filter((f) => f.kept).length;
  const count = kept > 0 ? `${filters.length}, ${kept} kept` : `${filters.length}`;
  return [
    el('h4', {}, `EnvoyFilters (${count})`),
    el(
      'ul',
      { class: 'filters' },
      filters.map((f) =>
        el(
          'li',
          f.kept ? { 'data-kept': f.why } : {},
          el('span', { class: `dir dir-${f.direction}` }, f.direction),
          ` ${f.namespace}/${f.name}`,
          f.kept
            ? [
                badge('kept', 'kept'),
                el('span', { class: 'muted' }, ` in effect, ${KEPT_WHY[f.why] ?? KEPT_WHY.unknown}`),
              ]
            : undefined,
        ),
      ),
    ),
  ];
}

/** The words the filter box looks in: the service, its hosts, ports, protocols and the objects shown on it. */
function filterText(s) {
  return [
    s.key,
    s.hosts,
    s.ports.map((p) => `${p.number} ${p.name} ${p.protocol}`),
    s.routers.map((r) => r.ref),
    s.settings.map((o) => o.ref),
    s.envoyFilters.map((f) => f.name),
  ]
    .flat(Infinity)
    .join(' ');
}

const PROXY_BADGE = {
  acked: ['ok', 'acknowledged'],
  'not sent': ['notsent', 'not sent'],
};

export function serviceCard(s) {
  const rejected = s.rejectedByProxies || s.listenerRejections.length > 0;
  const state = s.held.length > 0 ? 'held' : rejected ? 'rejected' : 'ok';
  // Only proxies lacking the filter: say so (still the rejected state and colour).
  const onlyLacks =
    state === 'rejected' &&
    !s.rejectedByProxies &&
    s.listenerRejections.every((r) => r.reason === 'ProxyLacksExtension');
  const rows = [
    el(
      'header',
      {},
      el('h3', {}, s.id),
      state === 'ok' ? undefined : onlyLacks ? badge('lacks', 'lacks extension') : badge(state),
      changed(s.changedAt),
      el('p', { class: 'muted hosts' }, s.hosts.join(', ')),
      el('p', { class: 'ports' }, s.ports.map((p) => `${p.number} ${p.name}`).join(', ')),
    ),
  ];
  for (const h of s.held) {
    rows.push(
      el(
        'div',
        { class: 'problem problem-held' },
        badge('held'),
        ` not rendered: ${h.by} is invalid (what was written before stays)`,
        h.issues.length > 0
          ? el(
              'ul',
              {},
              h.issues.map((i) => el('li', {}, i)),
            )
          : undefined,
      ),
    );
  }
  for (const w of s.warnings) {
    rows.push(el('div', { class: 'problem problem-warning' }, badge('warning'), ` ${w}`));
  }
  rows.push(filtersSection(s.envoyFilters));
  if (s.listenerRejections.length > 0) rows.push(listenerSection(s));
  if (s.routers.length > 0) rows.push(el('h4', {}, 'Routes'), s.routers.map(routerSection));
  if (s.settings.length > 0) rows.push(settingsSection(s.settings));
  if (s.rds.length > 0) {
    rows.push(
      el('h4', {}, 'Route configurations served (RDS)'),
      el(
        'ul',
        { class: 'rds' },
        s.rds.map((r) => {
          const a = r.acks;
          const counts = a
            ? `${a.subscribed} subscribed, ${a.acked} acknowledged, ${a.pending} pending, ${a.rejected} rejected`
            : 'no proxy subscribed';
          return el(
            'li',
            {},
            `${r.name} `,
            el('span', { class: 'muted' }, r.served ? `v${r.version}: ${counts}` : `withheld: ${counts}`),
            a?.rejected > 0 ? badge('rejected') : undefined,
          );
        }),
      ),
    );
  }
  if (s.proxies.length > 0) {
    rows.push(
      el('h4', {}, 'Proxies'),
      el(
        'ul',
        { class: 'proxies' },
        s.proxies.map((p) =>
          el(
            'li',
            {},
            badge(...(PROXY_BADGE[p.state] ?? [p.state, p.state])),
            ` ${p.proxy} (${p.route})`,
            p.detail ? el('p', { class: 'detail' }, p.detail) : undefined,
          ),
        ),
      ),
    );
  }
  return el(
    'article',
    {
      class: `service service-${state}`,
      'data-service': s.id,
      'data-state': state,
      'data-filter': filterText(s),
    },
    rows,
  );
}
