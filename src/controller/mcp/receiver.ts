import { Worker } from 'node:worker_threads';
import { deepFreeze } from '../../util/json.ts';
import type { ReadResult } from './reader.ts';
import type { FromWorker, ReceiveInit, StreamEndMessage, ToWorker, WorkerPost } from './receive-protocol.ts';
import type { AdsOpenSpec, DiscoveryRequestObject } from './transport.ts';

/** Starts a receive worker (receive-worker.ts) with `init` as its workerData. */
export type SpawnReceiveWorker = (init: ReceiveInit) => Worker;

/**
 * The worker file: this module's sibling, with this module's own extension. tsc rewrites the `.ts` of imports to
 * `.js` (rewriteRelativeImportExtensions) but not a URL, so the extension is taken from where this module runs:
 * `.ts` under tsx (tests, bench), `.js` in dist/ (what ships).
 */
export function receiveWorkerUrl(): URL {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./receive-worker${ext}`, import.meta.url);
}

/**
 * Compiled JavaScript starts the worker file itself. Sources under tsx: Node 20 does not apply the main thread's
 * `--import tsx` to workers, so a small bootstrap registers tsx's loader in the worker first, then imports the file.
 */
export const spawnReceiveWorker: SpawnReceiveWorker = (init) => {
  const url = receiveWorkerUrl();
  const options = { workerData: init, name: 'mcp-receive' };
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
};

/** Responses at least this large are handed over by transfer when their bytes fill a memory block of their own. */
const TRANSFER_MIN_BYTES = 64 * 1024;
/** grpc-js hands each message as a view past its 5-byte frame header, in a block of its own (stream-decoder.js). */
const TRANSFER_SLACK_BYTES = 16;

/** The main thread's handle on the worker's ADS stream of one generation (ReceiveWorker.open). */
export interface WorkerStream {
  /** Sends a DiscoveryRequest on the stream (nothing once it ended or another generation opened). */
  write(request: DiscoveryRequestObject): void;
  /** Cancels the stream. */
  cancel(): void;
}

/**
 * The main thread's handle on the MCP receive worker: opens the ADS stream in the worker (its answers are read
 * there and never reach this thread as bytes), or posts each encoded DiscoveryResponse (tests, the bench), and
 * hands back what the worker says, in order. A worker that fails (an error it did not catch, or an exit not asked for) is replaced by a
 * new one at once and reported to `failed` (the client then starts a new stream: the new worker holds nothing, so
 * every type URL's next answer is read fresh).
 *
 * The response bytes are not copied when they fill a block of their own (what grpc-js hands the deserializer for
 * any large message): that block is transferred (detached here, no copy). Smaller or shared ones are copied once.
 */
export class ReceiveWorker {
  private worker: Worker | undefined;
  private nextId = 0;
  /** The id of the last response the worker answered and the main thread took. */
  private lastTaken = 0;
  private closed = false;
  /** Workers that failed and were replaced. */
  restarts = 0;

  constructor(
    private readonly init: ReceiveInit,
    private readonly events: {
      readonly message: (m: FromWorker) => void;
      readonly failed: (err: Error) => void;
      /** The worker's stream of generation `gen` ended (its gRPC status). */
      readonly streamEnd?: (m: StreamEndMessage) => void;
    },
    private readonly spawn: SpawnReceiveWorker = spawnReceiveWorker,
  ) {}

  /** Starts the worker (idempotent until close()). */
  start(): void {
    if (this.worker || this.closed) return;
    const w = this.spawn(this.init);
    this.worker = w;
    w.on('message', (m: WorkerPost) => {
      if (w !== this.worker) return;
      if (m.type === 'stream-end') return this.events.streamEnd?.(m);
      this.lastTaken = m.id;
      this.nextId = Math.max(this.nextId, m.id); // ids of the worker's own stream go on from the last one
      this.events.message(m);
    });
    w.on('error', (err) => this.fail(w, err));
    w.on('messageerror', (err) => this.fail(w, err));
    w.on('exit', (code) => this.fail(w, new Error(`the MCP receive worker exited with code ${code}`)));
  }

  /**
   * Hands `bytes` (an encoded DiscoveryResponse of stream generation `gen`) to the worker; `bytes` may be detached.
   * Returns the response's id (what the worker's answer about it carries), 0 when closed.
   */
  post(gen: number, bytes: Uint8Array): number {
    const w = this.worker;
    if (!w) return 0;
    const id = ++this.nextId;
    const owned =
      bytes.byteLength >= TRANSFER_MIN_BYTES &&
      bytes.buffer.byteLength - bytes.byteLength <= TRANSFER_SLACK_BYTES;
    const send = owned ? bytes : new Uint8Array(bytes); // a copy in a block of its own
    const m: ToWorker = { type: 'response', id, gen, bytes: send };
    try {
      w.postMessage(m, [send.buffer as ArrayBuffer]);
    } catch {
      w.postMessage({ ...m, bytes: new Uint8Array(bytes) }, []); // not transferable after all: copied
    }
    return id;
  }

  /**
   * Opens the ADS stream of generation `gen` in the worker (OpenMessage). Its answers come back as the posted
   * ones do; its end as `streamEnd`. A worker replaced after a failure holds no stream: the client opens anew.
   */
  open(gen: number, spec: AdsOpenSpec): WorkerStream {
    const w = this.worker;
    const send = (m: ToWorker) => {
      if (w === this.worker) w?.postMessage(m);
    };
    send({ type: 'open', gen, spec });
    return {
      write: (request) => send({ type: 'write', gen, request }),
      cancel: () => send({ type: 'cancel', gen }),
    };
  }

  /** A new stream generation (see GenerationMessage). */
  generation(gen: number): void {
    this.worker?.postMessage({ type: 'generation', gen, appliedThrough: this.lastTaken } satisfies ToWorker);
  }

  /** Ends the worker; nothing more is reported. */
  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }

  private fail(w: Worker, err: Error): void {
    if (w !== this.worker || this.closed) return;
    this.worker = undefined;
    this.restarts++;
    void w.terminate(); // after an error it exits on its own; make sure
    this.start();
    this.events.failed(err);
  }
}

/**
 * What the worker read, with its objects frozen as parseConfigObject leaves them (structured clone does not keep
 * that): the cost is that of the changed objects. Throws when nothing was read (a bug).
 */
export function frozen(read: ReadResult | undefined): ReadResult {
  if (!read) throw new Error('the receive worker read nothing');
  for (const c of read.changes) if (c.entry) deepFreeze(c.entry);
  return read;
}
