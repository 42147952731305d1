import type {
  ListenerRejection,
  ListenerRejections,
  ProxyListenerRejection,
} from '../model/listener-rejections.ts';

/**
 * The current listener rejections (model/listener-rejections.ts), per source object and per proxy, replaced as a
 * whole on every syncz answer.
 */
export class ListenerRejectionsStore implements ListenerRejections {
  private list: readonly ListenerRejection[] = [];
  private proxies: readonly ProxyListenerRejection[] = [];
  private text = '[]';
  private readonly listeners = new Set<(r: readonly ListenerRejection[]) => void>();

  current(): readonly ListenerRejection[] {
    return this.list;
  }

  /** The rejecting proxies of the last answer, by id (for /debug/proxies). */
  byProxy(): readonly ProxyListenerRejection[] {
    return this.proxies;
  }

  /**
   * Replaces the lists; tells subscribers only when the per-source list changed (a change of which proxies reject
   * alone is not news to them). Returns whether it changed.
   */
  set(list: readonly ListenerRejection[], byProxy: readonly ProxyListenerRejection[] = []): boolean {
    this.proxies = [...byProxy].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const text = JSON.stringify(list);
    if (text === this.text) return false;
    this.list = list;
    this.text = text;
    for (const fn of this.listeners) fn(list);
    return true;
  }

  subscribe(fn: (r: readonly ListenerRejection[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
