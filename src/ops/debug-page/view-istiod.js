// The debug page's pure view of istiod's answers (`listenerRejections` of /debug/proxies): per source object, per
// proxy, as problems, and the syncz client's state. No DOM, no fetch; every field is read defensively.

const list = (v) => (Array.isArray(v) ? v : []);

/** The word a listener rejection's reason is shown with (beside its colour). */
export function reasonWord(reason) {
  return reason === 'ProxyLacksExtension' ? 'lacks extension' : 'rejected';
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/**
 * istiod's view (`listenerRejections` of /debug/proxies) of one source object (`ServiceEntry/<ns>/<name>`):
 * `rejections`, per reason, `{ reason, word, proxies, namespaces, firstProxy, firstError, filter }`; `proxies`, per
 * rejecting proxy, `{ id, namespace, reason, word, listeners, filter, detail }`.
 */
export function istiodOf(lr, source) {
  const rejections = list(lr?.sources)
    .filter((r) => r?.source === source)
    .map((r) => ({
      reason: String(r.reason ?? 'ProxyRejected'),
      word: reasonWord(r.reason),
      proxies: typeof r.proxies === 'number' ? r.proxies : 0,
      namespaces: list(r.namespaces).map(String),
      firstProxy: String(r.firstProxy ?? '?'),
      firstError: String(r.firstError ?? ''),
      filter: r.filter === undefined ? undefined : String(r.filter),
    }));
  const proxies = list(lr?.proxies)
    .filter((p) => list(p?.sources).includes(source))
    .map((p) => ({
      id: String(p.id ?? '?'),
      namespace: String(p.namespace ?? ''),
      reason: String(p.reason ?? 'ProxyRejected'),
      word: reasonWord(p.reason),
      listeners: list(p.listeners).map(String),
      filter: p.filter === undefined ? undefined : String(p.filter),
      detail: String(p.errorDetail ?? ''),
    }));
  return { rejections, proxies };
}

/**
 * The syncz client's state as `{ state, text }` for a small line: `answering` (with when istiod last answered and
 * how many proxies it listed), `refused`, `unreachable`, `idle` (not asked yet), or `off` when /debug/proxies has
 * no `listenerRejections` (proxy status needs `--output kube` and a non-zero `--proxy-status-interval`).
 */
export function istiodStateOf(proxies) {
  const lr = proxies?.listenerRejections;
  if (!lr || typeof lr !== 'object') {
    return {
      state: 'off',
      text: "istiod's view of listeners: not asked (needs --output kube and --proxy-status-interval above 0)",
    };
  }
  const state = String(lr.state ?? 'idle');
  const at = lr.answeredAt ? `, last answer at ${lr.answeredAt}` : ', no answer yet';
  const reported =
    typeof lr.proxiesReported === 'number'
      ? `, ${plural(lr.proxiesReported, 'proxy', 'proxies')} reported`
      : '';
  const text = {
    answering: `istiod's view of listeners (istio.io/debug/syncz): answering${at}${reported}`,
    refused: `istiod's view of listeners: not available, istiod refuses istio.io/debug/syncz${at}`,
    unreachable: `istiod's view of listeners: not available, istiod cannot be reached${at}`,
    idle: `istiod's view of listeners: not asked yet${at}`,
  }[state];
  return { state, text: text ?? `istiod's view of listeners: ${state}${at}${reported}` };
}

/** istiod's listener rejections as problems of the page, per source object and reason (`kind: listener`). */
export function listenerProblems(lr) {
  const out = [];
  for (const r of list(lr?.sources)) {
    const n = typeof r?.proxies === 'number' ? r.proxies : 0;
    const ns = list(r?.namespaces);
    const where = ns.length > 0 ? ` in ${ns.length === 1 ? 'namespace' : 'namespaces'} ${ns.join(', ')}` : '';
    const lines = [`first: ${r?.firstProxy ?? '?'}: ${r?.firstError ?? ''}`];
    if (r?.filter) lines.unshift(`no implementation of ${r.filter}`);
    out.push({
      kind: 'listener',
      reason: String(r?.reason ?? 'ProxyRejected'),
      word: reasonWord(r?.reason),
      subject: `${r?.source ?? '?'}: ${reasonWord(r?.reason)} by ${plural(n, 'proxy', 'proxies')}${where} (istiod)`,
      lines,
    });
  }
  return out;
}
