/**
 * Items waiting to be handled, at most one per key: an item pushed while an older one of its key still waits
 * replaces it (the older is reported as superseded and never handled). Suits state-of-the-world answers, where
 * the newest answer of a type holds everything. Handling happens in a later turn (`schedule`, default
 * setImmediate), in the order the waiting items' latest versions were pushed; whatever was read in one turn of
 * the event loop is handled together.
 */
export class LatestQueue<T> {
  private readonly waiting = new Map<string, T>();
  private scheduled = false;

  constructor(
    private readonly handle: (item: T) => void,
    private readonly superseded: (key: string, item: T) => void,
    private readonly schedule: (run: () => void) => void = setImmediate,
  ) {}

  push(key: string, item: T): void {
    if (this.waiting.has(key)) {
      const older = this.waiting.get(key) as T;
      this.waiting.delete(key);
      this.superseded(key, older);
    }
    this.waiting.set(key, item);
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(() => this.drain());
  }

  /** Drops every waiting item (neither handled nor counted as superseded). */
  clear(): void {
    this.waiting.clear();
  }

  private drain(): void {
    this.scheduled = false;
    const items = [...this.waiting.values()];
    this.waiting.clear();
    for (const item of items) this.handle(item);
  }
}
