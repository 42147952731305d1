// Watch streams: newline-delimited {type, object} events replayed from the event log, then live.
// https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes
import type { ServerResponse } from 'node:http';
import { present } from './objects.ts';
import { groupVersion } from './registry.ts';
import type { Selector } from './selectors.ts';
import { badRequest, expired } from './status.ts';
import type { ObjectStore } from './store.ts';
import type { KubeObject, ResourceType, StoredEvent, WatchEventType } from './types.ts';

export interface WatchRequest {
  rt: ResourceType;
  version: string;
  resourceVersion?: string;
  allowWatchBookmarks: boolean;
  timeoutSeconds?: number;
  /** Namespace and selector filters; all must match. */
  filters: Selector[];
}

interface Stream {
  rt: ResourceType;
  res: ServerResponse;
  stop: () => void;
  bookmark: () => void;
}

/** Contract: each open stream stays open until the client leaves, its timeoutSeconds pass or closeAll(). */
export class WatchHub {
  private readonly streams = new Set<Stream>();

  constructor(
    private readonly store: ObjectStore,
    private readonly bookmarkIntervalMs: number,
  ) {}

  get openCount(): number {
    return this.streams.size;
  }

  /** Validates the request; throws ApiError (answered as a plain error) before any byte is written. */
  open(req: WatchRequest, res: ServerResponse): void {
    const rvText = req.resourceVersion ?? '';
    const from = rvText === '' || rvText === '0' ? undefined : Number(rvText);
    if (from !== undefined && !(Number.isInteger(from) && from >= 0)) {
      throw badRequest(`invalid resource version: ${rvText}`);
    }
    const { rt, version } = req;
    const matches = (o: KubeObject | undefined): boolean => o !== undefined && req.filters.every((f) => f(o));
    const write = (type: WatchEventType, object: unknown): void => {
      if (!res.writableEnded) res.write(`${JSON.stringify({ type, object })}\n`);
    };
    res.writeHead(200, {
      'content-type': 'application/json',
      'cache-control': 'no-cache, private',
      'transfer-encoding': 'chunked',
    });
    res.flushHeaders();
    if (from === undefined) {
      for (const o of this.store.scan(rt)) if (matches(o)) write('ADDED', present(rt, version, o));
    } else {
      const replay = this.store.eventsSince(rt, from);
      if (replay === 'expired') {
        const oldest = this.store.oldestWatchableRv();
        write('ERROR', expired(`too old resource version: ${from} (${oldest + 1})`));
        res.end();
        return;
      }
      for (const ev of replay) this.deliver(ev, matches, write, rt, version);
    }
    const unsubscribe = this.store.subscribe((evRt, ev) => {
      if (evRt.group === rt.group && evRt.plural === rt.plural) this.deliver(ev, matches, write, rt, version);
    });
    const timers: NodeJS.Timeout[] = [];
    const stream: Stream = {
      rt,
      res,
      stop: () => {
        unsubscribe();
        for (const t of timers) clearTimeout(t);
        this.streams.delete(stream);
      },
      bookmark: () => {
        if (!req.allowWatchBookmarks) return;
        const metadata = { resourceVersion: String(this.store.currentRv()) };
        write('BOOKMARK', { kind: rt.kind, apiVersion: groupVersion(rt.group, version), metadata });
      },
    };
    this.streams.add(stream);
    if (req.allowWatchBookmarks && this.bookmarkIntervalMs > 0) {
      timers.push(setInterval(stream.bookmark, this.bookmarkIntervalMs));
    }
    if (req.timeoutSeconds !== undefined && req.timeoutSeconds > 0) {
      timers.push(setTimeout(() => res.end(), req.timeoutSeconds * 1000));
    }
    res.on('close', stream.stop);
    res.on('finish', stream.stop);
  }

  private deliver(
    ev: StoredEvent,
    matches: (o: KubeObject | undefined) => boolean,
    write: (type: WatchEventType, object: unknown) => void,
    rt: ResourceType,
    version: string,
  ): void {
    const now = ev.type !== 'DELETED' && matches(ev.object);
    const before = ev.type === 'ADDED' ? false : matches(ev.previous);
    const obj = present(rt, version, ev.object);
    if (ev.type === 'DELETED') {
      if (before) write('DELETED', obj);
    } else if (now) write(before ? 'MODIFIED' : 'ADDED', obj);
    else if (before) write('DELETED', obj);
  }

  /** Sends a BOOKMARK on every stream that allowed them. */
  bookmarkAll(): void {
    for (const s of this.streams) s.bookmark();
  }

  /** Ends every stream normally (clients see the response end, as when the server's timeout hits). */
  closeAll(): void {
    this.closeWhere(() => true);
  }

  /** Ends the streams watching resource types that match (a CRD deleted ends its watches). */
  closeWhere(pred: (rt: ResourceType) => boolean): void {
    for (const s of [...this.streams]) {
      if (!pred(s.rt)) continue;
      s.stop();
      s.res.end();
    }
  }
}
