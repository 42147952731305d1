import type { ListenerRejection, ListenerRejections } from '../model/listener-rejections.ts';

/** The current listener rejections (model/listener-rejections.ts), replaced as a whole on every syncz answer. */
export class ListenerRejectionsStore implements ListenerRejections {
  private list: readonly ListenerRejection[] = [];
  private text = '[]';
  private readonly listeners = new Set<(r: readonly ListenerRejection[]) => void>();

  current(): readonly ListenerRejection[] {
    return this.list;
  }

  /** Replaces the list; tells subscribers only when it changed. Returns whether it changed. */
  set(list: readonly ListenerRejection[]): boolean {
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
