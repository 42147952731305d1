/**
 * An array kept sorted by `compare` under single inserts and removals (binary search, then one splice), for
 * outputs that must stay ordered while only a few of their items change. Items that compare equal are one item:
 * `insert` replaces it.
 */
export class SortedArray<T> {
  private readonly items: T[] = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.items.length;
  }

  /** Inserts `item`, replacing the item that compares equal to it. */
  insert(item: T): void {
    const { index, found } = this.search(item);
    if (found) this.items[index] = item;
    else this.items.splice(index, 0, item);
  }

  /** Removes the item that compares equal to `item`; returns whether there was one. */
  remove(item: T): boolean {
    const { index, found } = this.search(item);
    if (found) this.items.splice(index, 1);
    return found;
  }

  /** A copy of the items, in order: later changes do not affect it. */
  toArray(): T[] {
    return this.items.slice();
  }

  /** The items in order, without a copy: valid until the next change, never to be mutated. */
  view(): readonly T[] {
    return this.items;
  }

  private search(item: T): { index: number; found: boolean } {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.compare(this.items[mid] as T, item);
      if (c === 0) return { index: mid, found: true };
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return { index: lo, found: false };
  }
}
