import { errorFields, type Logger } from '../../util/logger.ts';
import { parseConfigObject } from '../../model/parse/parse.ts';
import { formatIssue } from '../../model/result.ts';
import { Backoff, type BackoffOptions } from '../../util/backoff.ts';
import { systemClock, type Clock, type TimerHandle } from '../../util/clock.ts';
import { buildNode, type NodeIdentity } from './node.ts';
import { loadMcpProtos, type McpProtos } from './protos.ts';
import type { FromWorker, ReadMessage, StreamEndMessage } from './receive-protocol.ts';
import { frozen, ReceiveWorker, type SpawnReceiveWorker, type WorkerStream } from './receiver.ts';
import { McpState, type McpStoreSink } from './state.ts';
import { McpStatus, type McpStatusSnapshot } from './status.ts';
import {
  AdsTransport,
  type AdsOpenSpec,
  type DiscoveryRequestObject,
  type ReadFileFn,
  type TransportOptions,
} from './transport.ts';
import { subscribedTypeUrls, type IstioApiMode, type McpTypeUrl } from './type-urls.ts';
import type { AmbientTarget, AmbientWrites } from '../store-ambient.ts';
import { AMBIENT_TYPE_URLS, applyAmbientAnswer, type AmbientTypeUrl } from './ambient.ts';
import type { AnyMessage } from './decode.ts';

export interface McpClientOptions extends TransportOptions {
  /** `--istio-api-version`: auto subscribes to v1 and v1alpha3 and unions them. */
  readonly apiVersion: IstioApiMode;
  /** `--revision`: configs labelled `istio.io/rev` with another value are ignored ('' = default revision). */
  readonly revision: string;
  readonly node: NodeIdentity;
  /** Reconnect backoff; default 0.5 s to 60 s, ×1.5, ±50 % jitter. */
  readonly backoff?: BackoffOptions;
}

export interface McpClientDeps {
  readonly store: McpStoreSink;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly readFile?: ReadFileFn;
  readonly protos?: McpProtos;
  /**
   * Read Gateway API Gateways and GatewayClasses too (ambient.ts), into this target's AmbientView; undefined: not
   * subscribed to (least privilege: read only what is referenced).
   */
  readonly ambient?: AmbientTarget;
  /** Starts the receive worker (tests: one that fails); default receive-worker.ts. */
  readonly spawnReceiveWorker?: SpawnReceiveWorker;
}

const INVALID_ARGUMENT = 3;

/**
 * The istiod MCP-over-xDS client (SotW ADS, Aeraki's node identity). Applies every full answer to the store
 * (see McpState): the ADS stream itself runs in the receive worker (receiver.ts, receive-worker.ts), which
 * decodes each DiscoveryResponse as it arrives and compares it with the last answer of its type URL in its own
 * thread (the answers' bytes never reach this thread), and this thread applies only what changed, decides the
 * ACK or NACK and has the worker send it, in the order the responses came; a worker that fails is replaced and the
 * stream started afresh (counted in `receiveWorkerRestarts`). ACKs with the response's nonce and version (NACKs when resources were undecodable, after
 * applying the rest), and reconnects with capped jittered backoff, reset once a stream has answered every
 * subscribed type. The store is never cleared on disconnect.
 *
 * Contract: `start()` once; `stop()` ends the stream and the channel, idempotent. `whenSynced()` resolves
 * once every subscribed type URL has received one full answer (it never rejects; it stays pending if istiod is
 * never reached).
 */
export class McpClient {
  private readonly protos: McpProtos;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly urls: readonly McpTypeUrl[];
  private readonly byUrl: ReadonlyMap<string, McpTypeUrl>;
  /** The ambient type URLs subscribed to (none without `ambient`), and where they go. */
  private readonly ambientUrls: ReadonlyMap<string, AmbientTypeUrl>;
  private readonly ambient: AmbientWrites | undefined;
  private readonly state: McpState;
  private readonly statusTracker: McpStatus;
  private readonly transport: AdsTransport;
  private readonly backoff: Backoff;
  private stream: WorkerStream | undefined;
  /**
   * Reads the responses, in order. A full answer supersedes an older one of its type URL still waiting there (state
   * of the world: the newer holds everything): the older is neither applied nor answered, and istiod takes the ACK
   * of the newer nonce as the answer (an older nonce would be stale anyway).
   */
  private readonly receiver: ReceiveWorker;
  private generation = 0;
  private timer: TimerHandle | undefined;
  private stopped = false;
  private started = false;
  private answeredOnStream = new Set<string>();
  private syncedResolve: (() => void) | undefined;
  private readonly syncedPromise: Promise<void>;

  constructor(
    private readonly options: McpClientOptions,
    deps: McpClientDeps,
  ) {
    this.protos = deps.protos ?? loadMcpProtos();
    this.clock = deps.clock ?? systemClock;
    this.log = deps.logger.child({ component: 'mcp' });
    this.urls = subscribedTypeUrls(options.apiVersion);
    this.byUrl = new Map(this.urls.map((u) => [u.url, u]));
    this.ambient = deps.ambient?.readsAmbient();
    this.ambientUrls = new Map(this.ambient ? AMBIENT_TYPE_URLS.map((u) => [u.url, u]) : []);
    // Applies what the receive worker read (which parses with parseConfigObject too); never reads itself.
    this.state = new McpState(this.protos, deps.store, parseConfigObject, options.revision, this.urls);
    this.receiver = new ReceiveWorker(
      { revision: options.revision, urls: this.urls, passUrls: [...this.ambientUrls.keys()] },
      {
        message: (m) => this.onWorker(m),
        failed: (err) => this.onWorkerFailed(err),
        streamEnd: (m) => this.onWorkerStreamEnd(m),
      },
      deps.spawnReceiveWorker,
    );
    this.statusTracker = new McpStatus(this.typeUrls());
    this.transport = new AdsTransport(options, this.protos, deps.readFile);
    this.backoff = new Backoff({ initialMs: 500, maxMs: 60_000, ...options.backoff });
    this.syncedPromise = new Promise((resolve) => (this.syncedResolve = resolve));
  }

  get synced(): boolean {
    return this.statusTracker.synced;
  }

  whenSynced(): Promise<void> {
    return this.syncedPromise;
  }

  status(): McpStatusSnapshot {
    return this.statusTracker.snapshot();
  }

  /** Called synchronously after every status change (state, responses, ACK/NACK, reconnects). */
  onStatus(listener: (s: McpStatusSnapshot) => void): () => void {
    return this.statusTracker.subscribe(listener);
  }

  /** The type URLs requested, in request order. */
  typeUrls(): readonly string[] {
    return [...this.urls.map((u) => u.url), ...this.ambientUrls.keys()];
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.log.info('connecting to istiod', {
      address: this.options.address,
      tls: this.transport.tls,
      typeUrls: this.typeUrls(),
    });
    if (this.options.tokenFile && !this.transport.tls) {
      this.log.warn('sending the service account token over a plaintext connection', {
        address: this.options.address,
      });
    }
    this.receiver.start();
    this.connect();
  }

  /** Ends the stream and the receive worker: a response still being read is dropped, neither applied nor answered. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.nextGeneration();
      if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
      this.timer = undefined;
      this.stream?.cancel();
      this.stream = undefined;
      this.setState('stopped');
    }
    await this.receiver.close();
  }

  private setState(s: McpStatus['state']): void {
    if (this.statusTracker.state === s) return;
    this.statusTracker.state = s;
    this.statusTracker.changed();
  }

  private connect(): void {
    if (this.stopped) return;
    const gen = this.nextGeneration();
    this.answeredOnStream = new Set();
    this.setState('connecting');
    this.transport.prepare().then(
      (spec) => this.onOpen(gen, spec),
      (err: unknown) => this.onStreamEnd(gen, 'cannot open the stream', err),
    );
  }

  /** Opens the stream in the receive worker (files were read here: the worker gets their contents). */
  private onOpen(gen: number, spec: AdsOpenSpec): void {
    if (gen !== this.generation) return;
    this.stream = this.receiver.open(gen, spec);
    this.state.resync(); // istiod answers a new stream afresh: its first answers are written in full
    const node = buildNode(this.options.node);
    this.typeUrls().forEach((url, i) => {
      // istiod treats a request for a type without a watch as an initial request whatever its nonce.
      this.send(gen, { typeUrl: url, ...(i === 0 ? { node } : {}), resourceNames: [] });
    });
    this.setState('connected');
  }

  private send(gen: number, req: DiscoveryRequestObject): void {
    if (gen !== this.generation || !this.stream) return;
    this.stream.write(req);
  }

  /** A new stream generation: what the old stream sent and is still being read is dropped. */
  private nextGeneration(): number {
    this.generation++;
    this.receiver.generation(this.generation);
    return this.generation;
  }

  /** What the receive worker says, in the order the responses came; a response of an older stream is dropped. */
  private onWorker(m: FromWorker): void {
    if (m.gen !== this.generation) return;
    if (m.type === 'read') return this.onResponse(m.gen, m);
    if (m.type === 'undecodable') {
      return this.onStreamEnd(m.gen, 'cannot decode a DiscoveryResponse', new Error(m.message));
    }
    const ts = this.statusTracker.type(m.typeUrl);
    if (ts) ts.superseded++;
  }

  /** The worker's stream ended: istiod closed it, or it failed (connection, TLS, a status of istiod's). */
  private onWorkerStreamEnd(m: StreamEndMessage): void {
    this.onStreamEnd(m.gen, `stream closed: ${m.code} ${m.details}`);
  }

  /** The receive worker failed (ReceiveWorker started a new one, holding nothing): a new stream, read afresh. */
  private onWorkerFailed(err: Error): void {
    this.statusTracker.receiveWorkerRestarts = this.receiver.restarts;
    this.log.error('the MCP receive worker failed; restarted, resyncing', errorFields(err));
    if (this.stopped || !this.started) return;
    if (this.stream || this.timer === undefined)
      this.onStreamEnd(this.generation, 'receive worker failed', err);
    else this.statusTracker.changed();
  }

  private onResponse(gen: number, resp: ReadMessage): void {
    if (gen !== this.generation) return;
    const url = resp.typeUrl;
    const type = this.byUrl.get(url);
    const ambient = this.ambientUrls.get(url);
    const ts = this.statusTracker.type(url);
    if ((!type && !ambient) || !ts) {
      this.log.warn('response for a type URL that was not requested; ignored', { typeUrl: url });
      return;
    }
    const { version, nonce } = resp;
    let nack: string | undefined;
    try {
      if (resp.error !== undefined) throw new Error(resp.error);
      const out = type
        ? this.state.apply(type, frozen(resp.read))
        : this.applyAmbient(ambient!, resp.resources ?? []);
      ts.resources = out.valid;
      ts.invalid = out.invalid;
      ts.undecodable += out.undecodable;
      if (out.badNames.length > 0) {
        this.log.warn('skipped resources with bad names', { typeUrl: url, reasons: out.badNames });
      }
      if (out.undecodable > 0) {
        nack = `${out.undecodable} undecodable resource(s): ${out.reasons.join('; ')}`;
        this.log.warn('skipped undecodable resources', {
          typeUrl: url,
          count: out.undecodable,
          reasons: out.reasons,
          partial: out.partial,
        });
      }
      this.log.debug('applied response', { typeUrl: url, version, ...out });
    } catch (err) {
      // A bug in a store listener, not bad input: report it to istiod and in the log; keep the stream.
      nack = `internal error: ${(err as Error).message}`;
      this.log.error('applying a response failed', { typeUrl: url, ...errorFields(err) });
    }
    ts.responses++;
    ts.lastPushTime = this.clock.now();
    ts.answered = true;
    if (nack === undefined) {
      ts.version = version;
      this.statusTracker.acksSent++;
      this.send(gen, { typeUrl: url, versionInfo: version, responseNonce: nonce, resourceNames: [] });
    } else {
      ts.nacks++;
      this.statusTracker.nacksSent++;
      this.send(gen, {
        typeUrl: url,
        versionInfo: ts.version,
        responseNonce: nonce,
        resourceNames: [],
        errorDetail: { code: INVALID_ARGUMENT, message: nack },
      });
    }
    this.answeredOnStream.add(url);
    if (this.answeredOnStream.size === this.typeUrls().length) this.backoff.reset();
    if (this.statusTracker.synced && this.syncedResolve) {
      this.syncedResolve();
      this.syncedResolve = undefined;
      this.log.info('synced with istiod', { typeUrls: this.typeUrls().length });
    }
    this.statusTracker.changed();
  }

  /** An answer of an ambient type URL (ambient.ts), with its issues logged as the store's sources log theirs. */
  private applyAmbient(
    type: AmbientTypeUrl,
    resources: readonly AnyMessage[],
  ): {
    valid: number;
    invalid: number;
    undecodable: number;
    reasons: readonly string[];
    badNames: string[];
    partial: boolean;
  } {
    const out = applyAmbientAnswer(this.ambient!, type, resources, this.options.revision);
    for (const i of out.issues) this.log.warn('config issue', { typeUrl: type.url, issue: formatIssue(i) });
    return { ...out, badNames: [], partial: out.undecodable > 0 };
  }

  private onStreamEnd(gen: number, reason: string, err?: unknown): void {
    if (gen !== this.generation || this.stopped) return;
    this.nextGeneration();
    this.stream?.cancel();
    this.stream = undefined;
    const delay = this.backoff.next();
    this.statusTracker.reconnects++;
    this.statusTracker.lastError = err === undefined ? reason : `${reason}: ${(err as Error).message}`;
    this.log.warn('istiod stream ended; reconnecting', {
      reason,
      delayMs: delay,
      attempt: this.backoff.attempts,
      ...(err !== undefined ? errorFields(err) : {}),
    });
    this.setState('backoff');
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.connect();
    }, delay);
  }
}
