// The debug page's controls: a filter box over the services and problems, and an optional refresh (off by
// default: 5, 15 or 60 s). Both are kept in the page's URL (`?q=...&refresh=15`), so a reload or a shared link
// keeps them. Plain DOM; the filter hides what does not match with the `hidden` attribute.
import { matchesFilter, refreshOf, REFRESH_CHOICES } from './view-state.js';

const params = () => new URLSearchParams(window.location.search);

/** Writes `key` (removed when empty or `0`) into the URL without a reload or a history entry. */
function remember(key, value) {
  const p = params();
  if (value === '' || value === '0') p.delete(key);
  else p.set(key, value);
  const query = p.toString();
  window.history.replaceState(null, '', `${window.location.pathname}${query ? `?${query}` : ''}`);
}

/** Hides the cards, groups and problems that do not match the filter box; says how many services show. */
export function applyFilter() {
  const query = document.getElementById('filter')?.value ?? '';
  let shown = 0;
  let total = 0;
  for (const card of document.querySelectorAll('[data-service]')) {
    const match = matchesFilter(card.dataset.filter ?? card.dataset.service, query);
    card.hidden = !match;
    total++;
    if (match) shown++;
  }
  for (const group of document.querySelectorAll('[data-protocol]')) {
    group.hidden = group.querySelector('[data-service]:not([hidden])') === null;
  }
  for (const item of document.querySelectorAll('[data-problem]')) {
    item.hidden = !matchesFilter(item.textContent, query);
  }
  const count = document.getElementById('filter-count');
  if (count) count.textContent = query.trim() === '' ? '' : `${shown} of ${total} services`;
}

/**
 * Wires the filter box and the refresh choice (their initial values from the URL); `reload` fetches and renders the
 * page again. Returns nothing; the refresh timer runs while an interval other than off is chosen.
 */
export function setUpControls(reload) {
  const filter = document.getElementById('filter');
  const refresh = document.getElementById('refresh');
  filter.value = params().get('q') ?? '';
  filter.addEventListener('input', () => {
    remember('q', filter.value);
    applyFilter();
  });
  for (const s of REFRESH_CHOICES) {
    const option = document.createElement('option');
    option.value = String(s);
    option.textContent = s === 0 ? 'off' : `every ${s} s`;
    refresh.append(option);
  }
  let timer;
  const schedule = () => {
    clearInterval(timer);
    const seconds = refreshOf(refresh.value);
    document.body.dataset.refresh = String(seconds);
    if (seconds > 0) timer = setInterval(() => void reload(), seconds * 1000);
  };
  refresh.value = String(refreshOf(params().get('refresh')));
  refresh.addEventListener('change', () => {
    remember('refresh', refresh.value);
    schedule();
  });
  schedule();
}
