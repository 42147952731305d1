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
  let next: string | undefined;
  do {
    const list = await fetchPage(next);
    if (isPlainObject(list) && Array.isArray(list['items'])) out.push(...(list['items'] as unknown[]));
    const md = isPlainObject(list) ? list['metadata'] : undefined;
    const token = isPlainObject(md) ? md['continue'] : undefined;
    next = typeof token === 'string' && token !== '' ? token : undefined;
  } while (next !== undefined);
  return out;
}
