/**
 * A list kept sorted by `compare` under single inserts and removals, for outputs that must stay ordered while
 * only a few of their items change. Items that compare equal are one item: `insert` replaces it. Items are held
 * in chunks of at most 2 × CHUNK, so an insert or removal moves O(CHUNK) items whatever the size (a splice of one
 * flat array of 30,000 items costs about 0.3 ms here: bench/README.md, "Incremental").
 */
const CHUNK = 256;

export class SortedArray<T> {
  private readonly chunks: T[][] = [];
  private count = 0;
  private flat: T[] | undefined = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.count;
  }

  /** Inserts `item`, replacing the item that compares equal to it. */
  insert(item: T): void {
    this.flat = undefined;
    if (this.chunks.length === 0) {
      this.chunks.push([item]);
      this.count++;
      return;
    }
    const c = Math.min(this.chunkFor(item), this.chunks.length - 1);
    const chunk = this.chunks[c] as T[];
    const { index, found } = search(chunk, item, this.compare);
    if (found) {
      chunk[index] = item;
      return;
    }
    chunk.splice(index, 0, item);
    this.count++;
    if (chunk.length > 2 * CHUNK) this.chunks.splice(c + 1, 0, chunk.splice(CHUNK));
  }

  /** Removes the item that compares equal to `item`; returns whether there was one. */
  remove(item: T): boolean {
    const c = this.chunkFor(item);
    const chunk = this.chunks[c];
    if (chunk === undefined) return false;
    const { index, found } = search(chunk, item, this.compare);
    if (!found) return false;
    this.flat = undefined;
    chunk.splice(index, 1);
    this.count--;
    if (chunk.length === 0) this.chunks.splice(c, 1);
    return true;
  }

  /** A copy of the items, in order: later changes do not affect it. */
  toArray(): T[] {
    const out = new Array<T>(this.count);
    let i = 0;
    for (const chunk of this.chunks) for (const item of chunk) out[i++] = item;
    return out;
  }

  /** The items in order, without a copy when nothing changed since the last call: never to be mutated. */
  view(): readonly T[] {
    this.flat ??= this.toArray();
    return this.flat;
  }

  /** The first chunk whose last item does not sort before `item` (chunks.length when there is none). */
  private chunkFor(item: T): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid] as T[];
      if (this.compare(chunk[chunk.length - 1] as T, item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function search<T>(
  items: readonly T[],
  item: T,
  compare: (a: T, b: T) => number,
): { index: number; found: boolean } {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compare(items[mid] as T, item);
    if (c === 0) return { index: mid, found: true };
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return { index: lo, found: false };
}
