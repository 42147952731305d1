// The debug page's script: fetches the /debug/* documents beside it, builds the view (view.js) and renders it.
// Every string from the documents goes into the DOM as text (textContent or an attribute), never as markup.
import { serviceCard } from './card.js';
import { applyFilter, setUpControls } from './controls.js';
import { badge, el, reasonBadge } from './dom.js';
import { buildView } from './view.js';

const DOCUMENTS = ['config', 'envoyfilters', 'routes', 'proxies', 'registries', 'protocols'];

/** A document, or undefined (a 404 means "not enabled": no registries configured). */
async function fetchDoc(name) {
  const res = await fetch(name, { headers: { Accept: 'application/json' }, cache: 'no-store' });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`/debug/${name}: HTTP ${res.status}`);
  return res.json();
}

const PROBLEM_BADGE = { notsent: ['notsent', 'not sent'], warning: ['warning', 'warning'] };

function problemBadge(p) {
  if (p.kind === 'listener') return reasonBadge(p);
  return badge(...(PROBLEM_BADGE[p.kind] ?? [p.kind]));
}

/** Warnings: rendered, with what the warning says (each object once, its name as the subject). */
function warningsSection(warnings) {
  if (warnings.length === 0) return undefined;
  return el(
    'section',
    { id: 'warnings' },
    el('h2', {}, `Warnings (${warnings.length})`),
    el(
      'ul',
      { class: 'problems' },
      warnings.map((w) =>
        el(
          'li',
          { class: 'problem problem-warning', 'data-problem': 'warning' },
          badge('warning'),
          ` ${w.subject}`,
          el(
            'ul',
            {},
            w.lines.map((l) => el('li', {}, l)),
          ),
        ),
      ),
    ),
  );
}

/** Synced or not, and whether some config in effect is a last good one (a green `synced` only when none is). */
function syncLine(view) {
  const state = !view.synced
    ? badge('pending', 'not synced yet')
    : view.lastGood.length > 0
      ? badge('held', 'last good config in use')
      : badge('ok', 'synced');
  return el(
    'p',
    { id: 'sync', 'data-last-good': view.lastGood.length > 0 ? 'true' : undefined },
    state,
    view.lastGood.length > 0 ? ` ${view.lastGood.join('; ')};` : '',
    ` loaded ${new Date().toISOString()}`,
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
              problemBadge(p),
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
    syncLine(view),
    el('p', { id: 'istiod', class: 'muted', 'data-state': view.istiod.state }, view.istiod.text),
    problemsSection(view.problems),
    warningsSection(view.warnings),
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

let loading = false;

async function main() {
  if (loading) return; // a refresh while the last load is still under way
  loading = true;
  const root = document.getElementById('main');
  try {
    const docs = Object.fromEntries(await Promise.all(DOCUMENTS.map(async (n) => [n, await fetchDoc(n)])));
    render(buildView(docs), root);
    applyFilter();
    document.body.dataset.loaded = 'true';
    document.body.dataset.loads = String(Number(document.body.dataset.loads ?? 0) + 1);
  } catch (err) {
    root.replaceChildren(
      el('p', { class: 'problem problem-rejected' }, badge('rejected', 'error'), ` ${String(err)}`),
    );
    document.body.dataset.loaded = 'error';
  } finally {
    loading = false;
  }
}

document.getElementById('reload').addEventListener('click', () => void main());
setUpControls(main);
void main();
