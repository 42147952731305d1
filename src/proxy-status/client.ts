import type { Logger } from '../util/logger.ts';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.ts';
import { decodeDebugSyncz, decodeSyncz, type AnyLike, type ProxySync } from './decode.ts';
import { DEBUG_SYNCZ_RESOURCE, DEBUG_TYPE_URL, SYNCZ_TYPE_URL } from './protos.ts';

/** What the client needs of an ADS stream (grpc-js ClientDuplexStream of DiscoveryRequest/Response objects). */
export interface SynczStream {
  write(req: {
    readonly typeUrl: string;
    readonly node?: unknown;
    readonly resourceNames?: readonly string[];
  }): boolean;
  on(
    event: 'data',
    fn: (res: { readonly typeUrl?: string; readonly resources?: readonly AnyLike[] }) => void,
  ): this;
  on(event: 'error', fn: (err: { readonly code?: number; readonly details?: string }) => void): this;
  on(event: 'end', fn: () => void): this;
  cancel(): void;
}

export interface SynczClientOptions {
  /** Opens a new ADS stream of its own to istiod (same address and credentials as MCP; never the MCP stream). */
  readonly open: () => Promise<SynczStream>;
  /** The node sent with every request (istiod identifies the caller's connection by it). */
  readonly node: unknown;
  /** Between two questions; default 30 s. */
  readonly intervalMs?: number;
  /** After `nudge()` (a write of EnvoyFilters): ask this soon; default 5 s. */
  readonly afterWriteMs?: number;
  /** After a refusal or an answer of another type; default 10 min. */
  readonly refusedBackoffMs?: number;
  /** No answer within this: the stream is dropped and the type taken as unknown (long backoff); default 20 s. */
  readonly timeoutMs?: number;
  /** Appended to the one warning of a refusal (what the operator can change). */
  readonly refusalHint?: string;
  /**
   * Ask first in the form that carries rejection details: `istio.io/debug` with resource name `syncz` (istiod's
   * DebugGen: TLS and a verified identity of the root namespace only). Set when the stream is TLS with an
   * identity (token or client certificate). Where that form is refused or not understood, the client says so
   * once, asks `istio.io/debug/syncz` instead, and tries the detailed form again after `refusedBackoffMs`.
   */
  readonly detailedForm?: boolean;
}

export interface SynczClientDeps {
  readonly logger: Logger;
  /** Every decoded answer: the proxies istiod sees. */
  readonly onAnswer: (proxies: readonly ProxySync[]) => void;
  readonly clock?: Clock;
}

/** gRPC codes by which istiod refuses a debug request (it then ends the whole stream). */
const REFUSALS = new Set([2, 3, 7, 12, 13, 16]); // UNKNOWN INVALID_ARGUMENT PERMISSION_DENIED UNIMPLEMENTED INTERNAL UNAUTHENTICATED

export type SynczClientState = 'idle' | 'answering' | 'refused' | 'unreachable';

/** `detailed`: istio.io/debug + `syncz` (JSON, NACK messages); `status`: istio.io/debug/syncz (ClientConfig). */
export type SynczForm = 'detailed' | 'status';

const TYPE_OF: Readonly<Record<SynczForm, string>> = { detailed: DEBUG_TYPE_URL, status: SYNCZ_TYPE_URL };
const WHAT: Readonly<Record<SynczForm, string>> = {
  detailed: `${DEBUG_TYPE_URL} ${DEBUG_SYNCZ_RESOURCE}`,
  status: SYNCZ_TYPE_URL,
};

/**
 * Asks istiod for its proxies' sync state periodically and soon after each write, on a stream of its own: in the
 * detailed form (`istio.io/debug` + `syncz`, with the rejections' messages) when `detailedForm` is set and that
 * form was not refused within the long backoff, else as `istio.io/debug/syncz`. Both decode to the same
 * ProxySync list, so attribution has one code path. istiod
 * answers every debug request with one response and keeps no watch, so polling is sending the request again;
 * an answer is never ACKed (an ACK would be one more request). A refusal (the stream ended with a refusal code
 * while a question was out) or an answer of another type (an istiod that does not know the type) is logged once
 * and retried after a long backoff, as is no answer within the timeout (an istiod without the type sends none);
 * other stream ends are retried at the next interval.
 */
export class SynczClient {
  private readonly clock: Clock;
  private readonly intervalMs: number;
  private readonly afterWriteMs: number;
  private readonly refusedBackoffMs: number;
  private readonly timeoutMs: number;
  private stream: SynczStream | undefined;
  private timer: TimerHandle | undefined;
  private timerAt = Infinity;
  private deadline: TimerHandle | undefined;
  private outstanding = false;
  private stopped = true;
  private warned = false;
  private detailedWarned = false;
  /** The detailed form is not asked before this time (it was refused or not understood). */
  private detailedAfter = 0;
  /** The form of the question out. */
  private asking: SynczForm = 'status';
  /** Questions sent, answers received (observability and tests). */
  sent = 0;
  answers = 0;
  state: SynczClientState = 'idle';
  /** The form of the last answer; undefined before the first. */
  answeredForm: SynczForm | undefined;

  constructor(
    private readonly options: SynczClientOptions,
    private readonly deps: SynczClientDeps,
  ) {
    this.clock = deps.clock ?? systemClock;
    this.intervalMs = options.intervalMs ?? 30_000;
    this.afterWriteMs = options.afterWriteMs ?? 5_000;
    this.refusedBackoffMs = options.refusedBackoffMs ?? 600_000;
    this.timeoutMs = options.timeoutMs ?? 20_000;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.clearDeadline();
    this.dropStream();
  }

  /** EnvoyFilters were written: ask a few seconds from now (unless a question is due sooner or refused). */
  nudge(): void {
    if (this.stopped || this.state === 'refused') return;
    this.schedule(this.afterWriteMs);
  }

  /** Schedules the next question in `ms` unless one is already due sooner. */
  private schedule(ms: number, force = false): void {
    if (this.stopped) return;
    const at = this.clock.now() + ms;
    if (!force && this.timer && this.timerAt <= at) return;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      void this.ask();
    }, ms);
  }

  private async ask(): Promise<void> {
    if (this.stopped || this.outstanding) return;
    this.outstanding = true;
    try {
      if (!this.stream) this.stream = this.attach(await this.options.open());
    } catch (err) {
      this.outstanding = false;
      this.deps.logger.debug('syncz: cannot open a stream to istiod', { error: (err as Error).message });
      this.state = 'unreachable';
      this.schedule(this.intervalMs);
      return;
    }
    if (this.stopped) return this.dropStream();
    this.sent++;
    const form: SynczForm =
      this.options.detailedForm && this.clock.now() >= this.detailedAfter ? 'detailed' : 'status';
    this.asking = form;
    this.stream.write({
      typeUrl: TYPE_OF[form],
      node: this.options.node,
      resourceNames: form === 'detailed' ? [DEBUG_SYNCZ_RESOURCE] : [],
    });
    this.deadline = this.clock.setTimeout(() => {
      this.deadline = undefined;
      this.outstanding = false;
      this.dropStream();
      // An istiod without a generator for the type sends nothing at all.
      this.unavailable(form, `istiod did not answer ${WHAT[form]} within ${this.timeoutMs} ms`);
    }, this.timeoutMs);
  }

  private attach(stream: SynczStream): SynczStream {
    stream.on('data', (res) => {
      const form = this.asking;
      if (this.stream !== stream || !this.outstanding || res.typeUrl !== TYPE_OF[form]) return;
      this.clearDeadline();
      this.outstanding = false;
      const resources = res.resources ?? [];
      const decoded = form === 'detailed' ? decodeDebugSyncz(resources) : decodeSyncz(resources);
      if (!decoded.ok) {
        this.dropStream();
        this.unavailable(form, `istiod does not answer ${WHAT[form]} (${decoded.reason})`);
        return;
      }
      this.answers++;
      if (form === 'detailed') this.detailedWarned = false;
      else this.warned = false;
      this.answeredForm = form;
      this.state = 'answering';
      this.schedule(this.intervalMs);
      this.deps.onAnswer(decoded.proxies);
    });
    stream.on('error', (err) => {
      if (this.stream !== stream) return;
      this.stream = undefined;
      const wasAsking = this.outstanding;
      this.clearDeadline();
      this.outstanding = false;
      if (wasAsking && err.code !== undefined && REFUSALS.has(err.code)) {
        this.unavailable(
          this.asking,
          `istiod refused ${WHAT[this.asking]}: ${err.details ?? `code ${err.code}`}`,
        );
        return;
      }
      this.state = 'unreachable';
      this.deps.logger.debug('syncz: stream ended', { code: err.code, details: err.details });
      this.schedule(this.intervalMs);
    });
    stream.on('end', () => {
      if (this.stream !== stream) return;
      this.stream = undefined;
    });
    return stream;
  }

  /**
   * The form was refused or not understood. The detailed one: said once, the status form asked at once, the
   * detailed one again after the long backoff. The status form: said once, asked again after the long backoff.
   */
  private unavailable(form: SynczForm, message: string): void {
    if (form === 'status') return this.refused(message);
    this.detailedAfter = this.clock.now() + this.refusedBackoffMs;
    if (!this.detailedWarned) {
      this.detailedWarned = true;
      this.deps.logger.warn(
        `${message}; asking ${SYNCZ_TYPE_URL} instead, which gives no rejection details (a rejected push reads ` +
          `as stale and is not reported); trying again in ${Math.round(this.refusedBackoffMs / 1000)} s`,
      );
    }
    this.schedule(0, true);
  }

  private refused(message: string): void {
    this.state = 'refused';
    if (!this.warned) {
      this.warned = true;
      const hint = this.options.refusalHint ? `; ${this.options.refusalHint}` : '';
      this.deps.logger.warn(
        `${message}; proxy rejections are not reported; asking again in ${Math.round(this.refusedBackoffMs / 1000)} s${hint}`,
      );
    }
    this.schedule(this.refusedBackoffMs, true);
  }

  private clearDeadline(): void {
    if (this.deadline) this.clock.clearTimeout(this.deadline);
    this.deadline = undefined;
  }

  private dropStream(): void {
    const s = this.stream;
    this.stream = undefined;
    s?.cancel();
  }
}
