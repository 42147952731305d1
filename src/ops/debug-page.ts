/**
 * The debug page's static files (src/ops/debug-page/: HTML, CSS and browser modules, no build step; `npm run build`
 * copies the folder beside the compiled server). Served by the debug listener under `/debug/` with a strict
 * Content-Security-Policy: the page loads its own files and fetches the `/debug/*` documents beside it, nothing
 * else (no inline script or style, no other origin).
 */
import { readFile } from 'node:fs/promises';

/** What the page's responses carry: only this origin's files, no inline code, no framing, no forms. */
export const DEBUG_PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface DebugPageFile {
  /** The file's name in src/ops/debug-page/. */
  readonly file: string;
  readonly contentType: string;
}

const FILES: Readonly<Record<string, DebugPageFile>> = {
  '/debug/': { file: 'index.html', contentType: 'text/html; charset=utf-8' },
  '/debug/page.css': { file: 'page.css', contentType: 'text/css; charset=utf-8' },
  '/debug/page.js': { file: 'page.js', contentType: 'text/javascript; charset=utf-8' },
  '/debug/card.js': { file: 'card.js', contentType: 'text/javascript; charset=utf-8' },
  '/debug/dom.js': { file: 'dom.js', contentType: 'text/javascript; charset=utf-8' },
  '/debug/view.js': { file: 'view.js', contentType: 'text/javascript; charset=utf-8' },
  '/debug/view-istiod.js': { file: 'view-istiod.js', contentType: 'text/javascript; charset=utf-8' },
  '/debug/view-state.js': { file: 'view-state.js', contentType: 'text/javascript; charset=utf-8' },
  '/debug/controls.js': { file: 'controls.js', contentType: 'text/javascript; charset=utf-8' },
};

/** The page file served at `path` (`/debug/`, `/debug/page.js`, ...), or undefined. */
export function debugPageFile(path: string): DebugPageFile | undefined {
  return Object.hasOwn(FILES, path) ? FILES[path] : undefined;
}

const DIR = new URL('./debug-page/', import.meta.url);

/** The content of a page file, read on each request (an edited file shows on reload). */
export async function readDebugPageFile(f: DebugPageFile): Promise<string> {
  try {
    return await readFile(new URL(f.file, DIR), 'utf8');
  } catch (err) {
    throw new Error(`debug page: cannot read ${f.file}`, { cause: err });
  }
}
