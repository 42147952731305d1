// One SotW ADS stream of the ServiceEntry MCP server: which type URLs it watches, the nonce and version last sent
// for each, and istiod's request rules (pilot/pkg/xds/ads.go shouldRespond; spec/wire-formats.md §1.6).
import type { Logger } from '../../util/logger.ts';
import type { McpLimits } from './limits.ts';
import type { McpSnapshot } from './snapshot.ts';

/** A decoded DiscoveryRequest (protobufjs camelCase field names). */
export interface McpRequest {
  readonly typeUrl?: string;
  readonly versionInfo?: string;
  readonly responseNonce?: string;
  readonly node?: { readonly id?: string };
  readonly errorDetail?: { readonly code?: number; readonly message?: string };
}

/** Counters over every stream of a server (tests and /debug). */
export interface McpServerCounters {
  streams: number;
  responses: number;
  acks: number;
  nacks: number;
}

export interface McpStreamDeps {
  readonly id: number;
  readonly logger: Logger;
  readonly counters: McpServerCounters;
  readonly limits: Pick<McpLimits, 'maxTypeUrlBytes' | 'maxNodeIdBytes' | 'maxTypeUrlsPerStream'>;
  /** The current answer for a type URL (the ServiceEntry set, or empty); undefined while it is not known yet. */
  snapshotFor(typeUrl: string): McpSnapshot | undefined;
  /** Encodes and writes one DiscoveryResponse. */
  send(typeUrl: string, snapshot: McpSnapshot, nonce: string): void;
}

interface Sent {
  /** '' while the answer is held back (not known yet). */
  readonly nonce: string;
  readonly version: string | undefined;
}

/**
 * Request handling: a NACK (error_detail set) is logged and counted, nothing is resent; an empty nonce or a type
 * not yet watched is an initial request and gets the full answer; a nonce other than the last one sent for the type
 * is stale and ignored; the last nonce is an ACK. `push()` answers each watched type whose version changed. A type
 * whose answer is not known yet is watched without an answer until `push()` finds one. A type URL over
 * `maxTypeUrlBytes`, a node id over `maxNodeIdBytes`, or one more than `maxTypeUrlsPerStream` watched, is refused: `handle` returns the problem and
 * keeps nothing of the request (the server ends the stream with RESOURCE_EXHAUSTED).
 */
export class McpStream {
  private readonly sent = new Map<string, Sent>();
  private nonceCounter = 0;
  private nodeId: string | undefined;

  constructor(private readonly deps: McpStreamDeps) {}

  /** Handles one request; returns why it is refused (nothing kept), undefined when it was taken. */
  handle(req: McpRequest): string | undefined {
    const typeUrl = req.typeUrl ?? '';
    const problem = this.overLimit(typeUrl, req.node?.id ?? '');
    if (problem) return problem;
    if (this.nodeId === undefined && req.node?.id) {
      this.nodeId = req.node.id;
      this.deps.logger.debug('mcp-server: stream node', { stream: this.deps.id, node: this.nodeId });
    }
    const nonce = req.responseNonce ?? '';
    const last = this.sent.get(typeUrl);
    if (req.errorDetail && (req.errorDetail.code ?? 0) !== 0) {
      this.deps.counters.nacks++;
      this.deps.logger.warn('mcp-server: NACK', {
        stream: this.deps.id,
        node: this.nodeId,
        typeUrl,
        version: req.versionInfo ?? '',
        error: req.errorDetail.message ?? '',
      });
      return undefined;
    }
    if (nonce === '' || last === undefined) this.respond(typeUrl);
    else if (nonce === last.nonce) this.deps.counters.acks++;
    return undefined;
  }

  /** Sends the new answer of every watched type whose version differs from the one last sent. */
  push(): void {
    for (const [typeUrl, sent] of this.sent) {
      const snapshot = this.deps.snapshotFor(typeUrl);
      if (snapshot && snapshot.version !== sent.version) this.respond(typeUrl);
    }
  }

  private overLimit(typeUrl: string, nodeId: string): string | undefined {
    const { maxTypeUrlBytes, maxNodeIdBytes, maxTypeUrlsPerStream } = this.deps.limits;
    const bytes = Buffer.byteLength(typeUrl);
    if (bytes > maxTypeUrlBytes) return `type_url is ${bytes} bytes; at most ${maxTypeUrlBytes} are accepted`;
    const idBytes = Buffer.byteLength(nodeId);
    if (idBytes > maxNodeIdBytes)
      return `node.id is ${idBytes} bytes; at most ${maxNodeIdBytes} are accepted`;
    if (!this.sent.has(typeUrl) && this.sent.size >= maxTypeUrlsPerStream) {
      return `the stream already watches ${this.sent.size} type URLs; at most ${maxTypeUrlsPerStream} are accepted`;
    }
    return undefined;
  }

  private respond(typeUrl: string): void {
    const snapshot = this.deps.snapshotFor(typeUrl);
    if (!snapshot) {
      this.sent.set(typeUrl, { nonce: '', version: undefined });
      return;
    }
    const nonce = `${this.deps.id}-${++this.nonceCounter}`;
    this.sent.set(typeUrl, { nonce, version: snapshot.version });
    this.deps.counters.responses++;
    this.deps.send(typeUrl, snapshot, nonce);
  }
}
