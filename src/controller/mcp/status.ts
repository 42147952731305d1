/**
 * What the MCP client exposes for metrics and readiness (prom-client wiring comes later). Listeners are called
 * synchronously after every change; a snapshot is a fresh object the caller may keep.
 */
export type McpConnectionState = 'idle' | 'connecting' | 'connected' | 'backoff' | 'stopped';

export interface McpTypeStatus {
  readonly typeUrl: string;
  /** At least one full answer received (ever, not only on the current stream). */
  readonly answered: boolean;
  /** Valid objects held for this type URL. */
  readonly resources: number;
  /** Decoded objects that failed validation (rejected, reported in the store). */
  readonly invalid: number;
  /** Clock time (ms) of the last response, undefined before the first. */
  readonly lastPushTime: number | undefined;
  /** version_info of the last ACKed response. */
  readonly version: string;
  readonly responses: number;
  /** Full answers dropped unapplied (and unanswered) because a newer one of this type URL was already in. */
  readonly superseded: number;
  readonly undecodable: number;
  readonly nacks: number;
}

export interface McpStatusSnapshot {
  readonly state: McpConnectionState;
  /** Every subscribed type URL has received one full answer. */
  readonly synced: boolean;
  /** Streams re-opened after a failure. */
  readonly reconnects: number;
  readonly acksSent: number;
  readonly nacksSent: number;
  /** Full answers superseded before they were applied, all types. */
  readonly superseded: number;
  /** Undecodable resources skipped, all types. */
  readonly undecodable: number;
  /** Receive workers that failed and were replaced (each followed by a new stream). */
  readonly receiveWorkerRestarts: number;
  readonly lastError: string | undefined;
  readonly types: readonly McpTypeStatus[];
}

type MutableType = { -readonly [K in keyof McpTypeStatus]: McpTypeStatus[K] };

export class McpStatus {
  state: McpConnectionState = 'idle';
  reconnects = 0;
  acksSent = 0;
  nacksSent = 0;
  receiveWorkerRestarts = 0;
  lastError: string | undefined;
  private readonly types = new Map<string, MutableType>();
  private readonly listeners = new Set<(s: McpStatusSnapshot) => void>();

  constructor(typeUrls: readonly string[]) {
    for (const typeUrl of typeUrls) {
      this.types.set(typeUrl, {
        typeUrl,
        answered: false,
        resources: 0,
        invalid: 0,
        lastPushTime: undefined,
        version: '',
        responses: 0,
        superseded: 0,
        undecodable: 0,
        nacks: 0,
      });
    }
  }

  type(url: string): MutableType | undefined {
    return this.types.get(url);
  }

  get synced(): boolean {
    for (const t of this.types.values()) if (!t.answered) return false;
    return true;
  }

  snapshot(): McpStatusSnapshot {
    const types = [...this.types.values()].map((t) => ({ ...t }));
    return {
      state: this.state,
      synced: this.synced,
      reconnects: this.reconnects,
      acksSent: this.acksSent,
      nacksSent: this.nacksSent,
      superseded: types.reduce((n, t) => n + t.superseded, 0),
      undecodable: types.reduce((n, t) => n + t.undecodable, 0),
      receiveWorkerRestarts: this.receiveWorkerRestarts,
      lastError: this.lastError,
      types,
    };
  }

  subscribe(listener: (s: McpStatusSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    if (this.listeners.size === 0) return;
    const s = this.snapshot();
    for (const l of [...this.listeners]) l(s);
  }
}
