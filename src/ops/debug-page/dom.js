// The debug page's DOM helpers: elements built from text (strings become text nodes, never markup) and badges.

/** An element with attributes (class, data-*, ...) and children (strings become text nodes). */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) if (v !== undefined) node.setAttribute(k, String(v));
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    node.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return node;
}

/** A state shown by a colour and a word: `held`, `rejected`, `pending`, `ok`, ... */
export const badge = (state, text) =>
  el('span', { class: `badge badge-${state}`, 'data-badge': state }, text ?? state);

/** A listener rejection's badge: red with `rejected`, or with `lacks extension` when the proxy lacks the filter. */
export const reasonBadge = (r) => badge(r.reason === 'ProxyLacksExtension' ? 'lacks' : 'rejected', r.word);
