import type { DubboProvider } from '../model/registry-bridge.ts';
import { stableStringify } from '../util/json.ts';

/**
 * The providers a watcher last read, grouped by service key (an interface, or an application for
 * application-level discovery) and, inside a key, by source: one ZooKeeper node or etcd key listing them (a
 * `providers` node, an application node, a single etcd key). Replacing a source's providers reports whether the
 * key's set changed, so a watcher reports only real changes. Not thread-safe by design: one watcher owns it.
 */
export class ProviderTable {
  /** key -> source -> providers of that source (each sorted by origin). */
  private readonly byKey = new Map<string, Map<string, readonly DubboProvider[]>>();

  /** Replaces what `source` lists for `key` ([] removes it); true when the key's providers changed. */
  replace(key: string, source: string, providers: readonly DubboProvider[]): boolean {
    const sources = this.byKey.get(key);
    const before = sources?.get(source) ?? [];
    const after = [...providers].sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0));
    if (sameProviders(before, after)) return false;
    if (after.length === 0) {
      sources?.delete(source);
      if (sources?.size === 0) this.byKey.delete(key);
    } else if (sources) {
      sources.set(source, after);
    } else {
      this.byKey.set(key, new Map([[source, after]]));
    }
    return true;
  }

  /** Every key with at least one provider, sorted. */
  keys(): string[] {
    return [...this.byKey.keys()].sort();
  }

  /** The providers of `key` across its sources, sorted by origin; [] when unknown. */
  providers(key: string): DubboProvider[] {
    const sources = this.byKey.get(key);
    if (!sources) return [];
    return [...sources.values()]
      .flat()
      .sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0));
  }
}

function sameProviders(a: readonly DubboProvider[], b: readonly DubboProvider[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((p, i) => stableStringify(p) === stableStringify(b[i]));
}
