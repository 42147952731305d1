/**
 * Reads every page of a Kubernetes list (`limit` / `continue`): the items of all pages, in order. A server that
 * ignores `limit` answers in one page. Errors of `fetchPage` propagate unchanged.
 */
import { isPlainObject } from '../../util/json.ts';

/** `fetchPage(continueToken)` returns one list answer (`{items, metadata: {continue}}`); undefined for the first. */
export async function listAllPages(
  fetchPage: (continueToken: string | undefined) => Promise<unknown>,
): Promise<unknown[]> {
  const out: unknown[] = [];
  await forEachPage(fetchPage, (items) => {
    for (const item of items) out.push(item);
  });
  return out;
}

/**
 * Every page of a list, each handed to `onPage` as it arrives (awaited before the next is asked for): a reader that
 * keeps only what it reduces each item to lets the page's parsed objects die young, where collecting every item
 * first (listAllPages) keeps a whole list of parsed objects alive until the end and moves it to the old generation.
 */
export async function forEachPage(
  fetchPage: (continueToken: string | undefined) => Promise<unknown>,
  onPage: (items: readonly unknown[], page: unknown) => void | Promise<void>,
): Promise<void> {
  let next: string | undefined;
  do {
    const list = await fetchPage(next);
    await onPage(
      isPlainObject(list) && Array.isArray(list['items']) ? (list['items'] as unknown[]) : [],
      list,
    );
    const md = isPlainObject(list) ? list['metadata'] : undefined;
    const token = isPlainObject(md) ? md['continue'] : undefined;
    next = typeof token === 'string' && token !== '' ? token : undefined;
  } while (next !== undefined);
}

/** The page size of an informer's list read in pages (as the reconciler's own listing reads). */
export const INFORMER_PAGE_SIZE = 500;

/**
 * Every page of a list as one list answer, for an informer (client-node's ListWatch starts its watch from the
 * answer's `metadata.resourceVersion`). The pages of one list are served from one snapshot, so every page carries
 * the resourceVersion of the first (Kubernetes API concepts, "Retrieving large results sets in chunks"); the last
 * page's metadata is kept, without its `continue`. Each page is parsed by itself, so a list of 30,000 objects is
 * parsed in pieces between which the loop runs, not in one stretch.
 */
export async function listInPages(
  fetchPage: (continueToken: string | undefined) => Promise<unknown>,
): Promise<{ metadata: Record<string, unknown>; items: unknown[] }> {
  const items: unknown[] = [];
  let last: Record<string, unknown> = {};
  await forEachPage(fetchPage, (pageItems, page) => {
    for (const item of pageItems) items.push(item);
    last = isPlainObject(page) ? page : {};
  });
  const { continue: _done, ...metadata } = isPlainObject(last['metadata']) ? last['metadata'] : {};
  return { ...last, metadata, items };
}
