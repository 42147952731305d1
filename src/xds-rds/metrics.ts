import { compareStrings } from '../model/order.ts';

/** Counters of the RDS server. Mutable, process-local; read them with `snapshot()`. */
export interface NackRecord {
  readonly proxy: string;
  readonly peer: string;
  readonly version: string;
  readonly reason: string;
}

export class RdsMetrics {
  streamsOpened = 0;
  streamsActive = 0;
  responses = 0;
  responseBytes = 0;
  acks = 0;
  nacks = 0;
  staleNonces = 0;
  rejectedTypeUrls = 0;
  /** Requests refused with INVALID_ARGUMENT (undecodable, oversized, unknown type URL). */
  invalidRequests = 0;
  /** Clients or streams refused, by reason (peer-policy.ts RefusalReason): `aeraki_rds_refused_total{reason}`. */
  readonly refused = new Map<string, number>();
  /** NACK count by peer identity (SPIFFE URI or CN; `unauthenticated` in insecure mode). */
  readonly nacksByPeer = new Map<string, number>();
  /** The most recent NACKs (at most 100), oldest first. */
  readonly lastNacks: NackRecord[] = [];

  recordRefusal(reason: string): void {
    this.refused.set(reason, (this.refused.get(reason) ?? 0) + 1);
  }

  recordNack(r: NackRecord): void {
    this.nacks++;
    this.nacksByPeer.set(r.peer, (this.nacksByPeer.get(r.peer) ?? 0) + 1);
    this.lastNacks.push(r);
    if (this.lastNacks.length > 100) this.lastNacks.shift();
  }

  snapshot(): Record<string, unknown> {
    return {
      streamsOpened: this.streamsOpened,
      streamsActive: this.streamsActive,
      responses: this.responses,
      responseBytes: this.responseBytes,
      acks: this.acks,
      nacks: this.nacks,
      staleNonces: this.staleNonces,
      rejectedTypeUrls: this.rejectedTypeUrls,
      invalidRequests: this.invalidRequests,
      refused: Object.fromEntries([...this.refused].sort(([a], [b]) => compareStrings(a, b))),
      nacksByPeer: Object.fromEntries([...this.nacksByPeer].sort(([a], [b]) => compareStrings(a, b))),
    };
  }
}
