// One stream's way out, as istiod sends (pilot/pkg/xds/pushqueue.go, pkg/xds/server.go Send): at most one
// response in flight, the next only once the previous write completed (gRPC flow control lets it through) and
// the stream drained; a push of a type URL that is already waiting merges into the waiting one, whose answer is
// built when it is sent (the newest state wins), so a stream that does not read holds one pending push per type,
// not a backlog.

/** The part of a gRPC server stream the writer uses. */
export interface WritableCall {
  write(chunk: Buffer, callback: () => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

type Entry = { readonly typeUrl: string } | { readonly raw: Buffer };

export class StreamWriter {
  /** Responses handed to the stream so far. */
  written = 0;
  private readonly queue: Entry[] = [];
  private readonly waitingTypes = new Set<string>();
  private busy = false;
  private closed = false;
  private endWhenIdle: (() => void) | undefined;

  /**
   * `build` makes a type URL's full answer at the moment it is sent; `delayMs` is read before each response
   * (the fake's slow-istiod fault); `onProgress` runs after each write is handed to the stream and whenever
   * nothing is left in flight or waiting.
   */
  constructor(
    private readonly call: WritableCall,
    private readonly build: (typeUrl: string) => Buffer,
    private readonly delayMs: () => number,
    private readonly onProgress: () => void,
  ) {}

  /** Nothing in flight and nothing waiting. */
  get idle(): boolean {
    return !this.busy && this.queue.length === 0;
  }

  /** Closing (endAfterWrites) or closed: further pushes are ignored. */
  get ending(): boolean {
    return this.closed || this.endWhenIdle !== undefined;
  }

  /** Sends the type URL's current state: now if idle, else once, after what is in flight or waiting. */
  pushType(typeUrl: string): void {
    if (this.ending || this.waitingTypes.has(typeUrl)) return;
    this.waitingTypes.add(typeUrl);
    this.queue.push({ typeUrl });
    this.pump();
  }

  /** Sends a prepared response (a debug answer: one per request, never merged) in turn. */
  pushRaw(raw: Buffer): void {
    if (this.ending) return;
    this.queue.push({ raw });
    this.pump();
  }

  /** Runs `end` once what is in flight and waiting has been written; later pushes are ignored. */
  endAfterWrites(end: () => void): void {
    this.endWhenIdle = end;
    this.pump();
  }

  /** The stream ended: what waits is dropped. */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.waitingTypes.clear();
  }

  private pump(): void {
    if (this.busy || this.closed) return;
    const next = this.queue.shift();
    if (next === undefined) {
      const end = this.endWhenIdle;
      this.endWhenIdle = undefined;
      if (end) end();
      this.onProgress();
      return;
    }
    this.busy = true;
    const send = (): void => {
      if (this.closed) return;
      let out: Buffer;
      if ('typeUrl' in next) {
        this.waitingTypes.delete(next.typeUrl);
        out = this.build(next.typeUrl);
      } else out = next.raw;
      let written = false;
      let drained = true;
      const done = (): void => {
        if (!written || !drained) return;
        this.busy = false;
        this.pump();
      };
      this.written++;
      const more = this.call.write(out, () => {
        written = true;
        done();
      });
      if (!more) {
        drained = false;
        this.call.once('drain', () => {
          drained = true;
          done();
        });
      }
      this.onProgress();
    };
    const delay = this.delayMs();
    if (delay > 0) setTimeout(send, delay);
    else send();
  }
}
