/**
 * When the controller saw each stored object change: the `at` the store stamps on its events (its injected clock),
 * per `<kind>/<namespace>/<name>`, kept from the store's own added, updated and deleted events (an identical
 * version stored again is no event, hence no change). `/debug/config` lists them (`changedAt`). Objects stored
 * before `track` was called have no time until they change.
 */
import type { ConfigEvent } from '../model/view.ts';

export interface ChangeTimes {
  /** ms since the epoch of the last change of the stored object; undefined when none was seen. */
  at(kind: string, namespace: string, name: string): number | undefined;
  /** Stops listening (the times are kept). */
  stop(): void;
}

const key = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

export function trackChangeTimes(store: {
  subscribe(listener: (e: ConfigEvent) => void): () => void;
}): ChangeTimes {
  const times = new Map<string, number>();
  const stop = store.subscribe((e) => {
    if (e.object === undefined && e.old === undefined) return; // held, ambient and endpoint-port events
    if (e.type === 'deleted') times.delete(key(e.kind, e.namespace, e.name));
    else if (e.at !== undefined) times.set(key(e.kind, e.namespace, e.name), e.at);
  });
  return { at: (kind, namespace, name) => times.get(key(kind, namespace, name)), stop };
}
