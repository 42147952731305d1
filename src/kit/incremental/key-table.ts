/**
 * One string per dependency key (dependencies.ts) across every DependentUnits of the process: the generator's, the
 * routes', the conflicts' and the waypoint's units read mostly the same `host:` and `obj:` keys, and each recording
 * makes a new string for each; the indexes hold the table's string instead, so a key read by several units (of one
 * index or of several) is held once. Counted: a key goes with the last unit reading it.
 */
export class KeyTable {
  private readonly keys = new Map<string, string>();
  private readonly refs = new Map<string, number>();

  /** The table's string equal to `key` (`key` itself the first time), counted once more. */
  intern(key: string): string {
    const held = this.keys.get(key);
    if (held === undefined) {
      this.keys.set(key, key);
      this.refs.set(key, 1);
      return key;
    }
    this.refs.set(held, (this.refs.get(held) ?? 0) + 1);
    return held;
  }

  /** One use of `key` fewer; the last one drops it. */
  release(key: string): void {
    const n = this.refs.get(key);
    if (n === undefined) return;
    if (n > 1) {
      this.refs.set(key, n - 1);
      return;
    }
    this.refs.delete(key);
    this.keys.delete(key);
  }

  /** How many uses `key` has (0: not held). */
  uses(key: string): number {
    return this.refs.get(key) ?? 0;
  }

  /** How many keys are held. */
  get size(): number {
    return this.keys.size;
  }
}

/** The process's table, shared by every DependentUnits. */
export const DEPENDENCY_KEYS = new KeyTable();
