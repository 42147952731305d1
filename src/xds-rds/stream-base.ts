import { ROUTE_CONFIGURATION_TYPE } from '../model/constants.ts';
import type { StreamAcks } from './acks.ts';
import { STATUS_RESOURCE_EXHAUSTED } from './admission.ts';
import type { BudgetRefusal, StreamBudget } from './budgets.ts';
import { openStream, requestRefusal } from './request-checks.ts';
import type { EncodedResource, ResourceWatcher, Snapshot } from './snapshot.ts';
import {
  STATUS_INVALID_ARGUMENT,
  type DeltaRequest,
  type ErrorDetail,
  type SotwRequest,
  type StreamDeps,
} from './stream-types.ts';

/** NACK reasons are kept and logged up to this many characters. */
const MAX_REASON = 1024;

/**
 * What SotW and delta RDS streams share: the subscribed names and their watches on the cache, the node id,
 * nonces, the type URL check, NACK accounting and sending. Subclasses implement the protocol rules.
 */
export abstract class RdsStreamBase implements ResourceWatcher {
  protected nodeId = '';
  protected names = new Set<string>();
  protected lastNonce = '';
  protected sentVersion = '';
  protected started = false;
  protected closed = false;
  private nonceCounter = 0;
  /** This stream's routes in the acknowledgement tracker, when the server keeps one. */
  protected readonly acks: StreamAcks | undefined;
  /** This stream's share of the route-name budgets. */
  protected readonly budget: StreamBudget;

  constructor(protected readonly deps: StreamDeps) {
    ({ acks: this.acks, budget: this.budget } = openStream(deps, this.protocol()));
    if (this.acks) this.acks.subscription = () => this.names;
  }

  /** 'sotw': every response carries the stream's whole set; 'delta': only what changed. */
  protected abstract protocol(): 'sotw' | 'delta';

  get subscribed(): readonly string[] {
    return [...this.names].sort();
  }

  abstract onResourcesChanged(snapshot: Snapshot, changed: readonly string[]): void;

  /** Stops watching and lets go of everything the stream holds (names, budget, acknowledgements); idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const n of this.names) this.deps.cache.unwatch(n, this);
    this.names.clear();
    this.forget();
    this.budget.close();
    this.acks?.close();
    this.deps.metrics.streamsActive--;
  }

  /** Drops the protocol's own per-name state (on close). */
  protected abstract forget(): void;

  /**
   * Checks the request (decodable, field sizes within REQUEST_LIMITS, names within the budgets), records the node id
   * and checks the type URL (only RouteConfiguration; later requests may leave it empty). A bad request ends the
   * stream with INVALID_ARGUMENT, a name over budget with RESOURCE_EXHAUSTED, each with a message naming the
   * problem; returns false then.
   */
  protected accept(req: SotwRequest | DeltaRequest): boolean {
    if (this.closed) return false;
    const refused = requestRefusal(req, this.budget);
    if (refused && 'problem' in refused) return this.refuse('rds: invalid request', refused.problem);
    if (refused) return this.exhausted(refused.overBudget);
    if (req.nodeId) {
      this.nodeId = req.nodeId;
      if (this.acks) this.acks.nodeId = req.nodeId;
    }
    if (req.typeUrl === ROUTE_CONFIGURATION_TYPE || (this.started && req.typeUrl === '')) return true;
    this.deps.metrics.rejectedTypeUrls++;
    const typeUrl = req.typeUrl.slice(0, 200);
    return this.refuse('rds: unknown type URL', `unsupported type URL "${typeUrl}"`);
  }

  /** Ends the stream with INVALID_ARGUMENT naming `problem`; returns false. */
  protected refuse(log: string, problem: string): false {
    this.deps.metrics.invalidRequests++;
    this.deps.logger.warn(log, { proxy: this.nodeId, peer: this.deps.peer, problem });
    this.close();
    this.deps.sink.fail(STATUS_INVALID_ARGUMENT, problem);
    return false;
  }

  /**
   * Ends the stream with RESOURCE_EXHAUSTED naming the budget (the budgets counted and logged the refusal);
   * returns false.
   */
  protected exhausted(refusal: BudgetRefusal): false {
    this.deps.logger.debug('rds: over budget', { proxy: this.nodeId, peer: this.deps.peer, ...refusal });
    this.close();
    this.deps.sink.fail(STATUS_RESOURCE_EXHAUSTED, refusal.message);
    return false;
  }

  /**
   * A NACK of the last response: logged and counted with the proxy, peer and reason, and recorded against the
   * routes it carried; nothing is resent (the proxy keeps its last good version and is served nothing else).
   */
  protected recordNack(detail: ErrorDetail, keptVersion?: string): void {
    const reason = detail.message.slice(0, MAX_REASON);
    this.acks?.nack(this.lastNonce, reason);
    this.deps.metrics.recordNack({
      proxy: this.nodeId,
      peer: this.deps.peer,
      version: this.sentVersion,
      reason,
    });
    this.deps.logger.warn('rds: NACK', {
      proxy: this.nodeId,
      peer: this.deps.peer,
      rejectedVersion: this.sentVersion,
      ...(keptVersion !== undefined ? { keptVersion } : {}),
      reason,
    });
  }

  /** Sends one response built for the next nonce and records it as the last one sent. */
  protected send(
    version: string,
    resources: readonly EncodedResource[],
    encode: (nonce: string) => Buffer,
    extra: Record<string, unknown> = {},
  ): void {
    const nonce = String(++this.nonceCounter);
    const bytes = encode(nonce);
    this.lastNonce = nonce;
    this.sentVersion = version;
    this.acks?.sent(nonce, resources, this.protocol() === 'sotw');
    this.deps.metrics.responses++;
    this.deps.metrics.responseBytes += bytes.length;
    this.deps.logger.debug('rds: push', {
      proxy: this.nodeId,
      peer: this.deps.peer,
      version,
      nonce,
      resources: resources.length,
      ...extra,
    });
    this.deps.sink.send(bytes);
  }
}
