/**
 * Text from input (a file name, an object's name, a parser's message) shown on one line of text output: control
 * characters (C0, DEL, C1, and the Unicode line and paragraph separators) written as escapes, as Go's %q writes
 * them (`\n`, `\t`, `\x1b`, `\u2028`), so that a file named `a\nerror: ...` cannot print a second, forged line.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const named = NAMED[c];
    if (named !== undefined) return named;
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}
