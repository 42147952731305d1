// The debug page's script: fetches the /debug/* documents beside it, builds the view (view.js) and renders it.
// Every string from the documents goes into the DOM as text (textContent or an attribute), never as markup.
import { buildView } from './view.js';

const DOCUMENTS = ['config', 'envoyfilters', 'routes', 'proxies', 'registries'];

/** An element with attributes (class, data-*, ...) and children (strings become text nodes). */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) if (v !== undefined) node.setAttribute(k, String(v));
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    node.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return node;
}

/** A state shown by a colour and a word: `held`, `rejected`, `pending`, `ok`, ... */
const badge = (state, text) =>
  el('span', { class: `badge badge-${state}`, 'data-badge': state }, text ?? state);

/** A document, or undefined (a 404 means "not enabled": no registries configured). */
async function fetchDoc(name) {
  const res = await fetch(name, { headers: { Accept: 'application/json' }, cache: 'no-store' });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`/debug/${name}: HTTP ${res.status}`);
  return res.json();
}

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

function routerSection(router) {
  return el(
    'div',
    { class: 'router' },
    el('h4', {}, router.ref),
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

/** A listener rejection's badge: red with `rejected`, or with `lacks extension` when the proxy lacks the filter. */
const reasonBadge = (r) => badge(r.reason === 'ProxyLacksExtension' ? 'lacks' : 'rejected', r.word);

/** istiod's view of a service's listeners: per reason, how many proxies and the first error; then per proxy. */
function listenerSection(s) {
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
    s.listenerProxies.length > 0
      ? el(
          'ul',
          { class: 'proxies listener-proxies' },
          s.listenerProxies.map((p) =>
            el(
              'li',
              { 'data-listener-proxy': p.id },
              reasonBadge(p),
              ` ${p.id}`,
              p.listeners.length > 0
                ? el('span', { class: 'muted' }, ` (${p.listeners.join(', ')})`)
                : undefined,
              p.detail ? el('p', { class: 'detail' }, p.detail) : undefined,
            ),
          ),
        )
      : undefined,
  ];
}

function serviceCard(s) {
  const rejected = s.rejectedByProxies || s.listenerRejections.length > 0;
  const state = s.held.length > 0 ? 'held' : rejected ? 'rejected' : 'ok';
  const rows = [
    el(
      'header',
      {},
      el('h3', {}, s.id),
      state === 'ok' ? undefined : badge(state),
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
  rows.push(
    el('h4', {}, `EnvoyFilters (${s.envoyFilters.length})`),
    el(
      'ul',
      { class: 'filters' },
      s.envoyFilters.map((f) =>
        el(
          'li',
          {},
          el('span', { class: `dir dir-${f.direction}` }, f.direction),
          ` ${f.namespace}/${f.name}`,
        ),
      ),
    ),
  );
  if (s.listenerRejections.length > 0) rows.push(listenerSection(s));
  if (s.routers.length > 0) rows.push(el('h4', {}, 'Routes'), s.routers.map(routerSection));
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
            badge(p.state === 'acked' ? 'ok' : p.state, p.state === 'acked' ? 'acknowledged' : p.state),
            ` ${p.proxy} (${p.route})`,
            p.detail ? el('p', { class: 'detail' }, p.detail) : undefined,
          ),
        ),
      ),
    );
  }
  return el(
    'article',
    { class: `service service-${state}`, 'data-service': s.id, 'data-state': state },
    rows,
  );
}

function problemsSection(problems) {
  return el(
    'section',
    { id: 'problems' },
    el('h2', {}, `Held, rejected and failing (${problems.length})`),
    problems.length === 0
      ? el('p', { class: 'muted' }, 'Nothing held or rejected.')
      : el(
          'ul',
          { class: 'problems' },
          problems.map((p) =>
            el(
              'li',
              { class: `problem problem-${p.kind}`, 'data-problem': p.kind },
              p.kind === 'listener' ? reasonBadge(p) : badge(p.kind),
              ` ${p.subject}`,
              el(
                'ul',
                {},
                p.lines.map((l) => el('li', {}, l)),
              ),
            ),
          ),
        ),
  );
}

function registriesSection(registries) {
  const body =
    registries === undefined
      ? el('p', { class: 'muted' }, 'No registry configured (serve --registry NAME=URL).')
      : el(
          'ul',
          { class: 'registries' },
          registries.map((r) => {
            const state = r.connected ? (r.synced ? 'ok' : 'pending') : 'disconnected';
            const word = r.connected ? (r.synced ? 'synced' : 'connected, not synced') : 'disconnected';
            return el(
              'li',
              { 'data-registry': r.name, 'data-state': state },
              badge(state, word),
              ` ${r.name} (${r.type ?? '?'}): ${r.services ?? 0} services, ${r.endpoints ?? 0} endpoints`,
              r.skipped ? `, ${r.skipped} held back (no namespace)` : '',
              r.syncErrors ? `, ${r.syncErrors} sync errors` : '',
              r.lastError ? el('p', { class: 'detail' }, `last error: ${r.lastError}`) : undefined,
              Array.isArray(r.issues) && r.issues.length > 0
                ? el(
                    'ul',
                    {},
                    r.issues.map((i) => el('li', {}, badge('issue'), ` ${String(i)}`)),
                  )
                : undefined,
            );
          }),
        );
  return el('section', { id: 'registries' }, el('h2', {}, 'Registries'), body);
}

function render(view, root) {
  const services = view.groups.map((g) =>
    el(
      'section',
      { class: 'protocol', 'data-protocol': g.protocol },
      el('h2', {}, `${g.protocol} (${g.services.length})`),
      el('div', { class: 'cards' }, g.services.map(serviceCard)),
    ),
  );
  root.replaceChildren(
    el(
      'p',
      { id: 'sync' },
      view.synced ? badge('ok', 'synced') : badge('pending', 'not synced yet'),
      ` loaded ${new Date().toISOString()}`,
    ),
    el('p', { id: 'istiod', class: 'muted', 'data-state': view.istiod.state }, view.istiod.text),
    problemsSection(view.problems),
    el(
      'section',
      { id: 'services' },
      el('h2', {}, 'Services by protocol'),
      services.length > 0
        ? el('div', { class: 'protocols' }, services)
        : el('p', { class: 'muted' }, 'No handled service.'),
    ),
    registriesSection(view.registries),
  );
}

async function main() {
  const root = document.getElementById('main');
  try {
    const docs = Object.fromEntries(await Promise.all(DOCUMENTS.map(async (n) => [n, await fetchDoc(n)])));
    render(buildView(docs), root);
    document.body.dataset.loaded = 'true';
  } catch (err) {
    root.replaceChildren(
      el('p', { class: 'problem problem-rejected' }, badge('rejected', 'error'), ` ${String(err)}`),
    );
    document.body.dataset.loaded = 'error';
  }
}

document.getElementById('reload').addEventListener('click', () => void main());
void main();
