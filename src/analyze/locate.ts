/**
 * Where an object starts in the text of the file it was read from, found again in the text (the YAML and JSON
 * decoders keep no positions): the line of its `kind:` (`"kind":`) when a `name:` of the object's name follows
 * before the next `kind:` or document separator. Good enough for a code-scanning UI to open the right place; when
 * the search finds nothing (a document writing metadata before kind, say), there is no line. Pure.
 */

function unquote(s: string): string {
  const t = s.trim().replace(/,$/, '').trim();
  return /^(["']).*\1$/.test(t) ? t.slice(1, -1) : t;
}

const KIND = /^\s*(?:-\s+)?"?kind"?\s*:\s*(.+?)\s*$/;
const NAME = /^\s*(?:-\s+)?"?name"?\s*:\s*(.+?)\s*$/;
/** `metadata: {name: orders, namespace: shop}` on one line. */
const INLINE_NAME = /[{,]\s*"?name"?\s*:\s*([^,}]+)/;

/** 1-based line of the object `kind` `name` in `text`, or undefined. */
export function lineOfObject(text: string, kind: string, name: string): number | undefined {
  const lines = text.split('\n');
  let kindLine: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^(---|\.\.\.)(\s|$)/.test(line)) {
      kindLine = undefined;
      continue;
    }
    const k = KIND.exec(line);
    if (k) {
      kindLine = unquote(k[1] ?? '') === kind ? i + 1 : undefined;
      continue;
    }
    if (kindLine === undefined) continue;
    const n = NAME.exec(line) ?? INLINE_NAME.exec(line);
    if (n && unquote(n[1] ?? '') === name) return kindLine;
  }
  return undefined;
}
