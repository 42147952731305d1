/**
 * Bounds the bytes of unfinished request messages one client identity makes the server hold. grpc-js reads a
 * stream's DATA frames as they come and keeps a message's bytes until the message is whole (its StreamDecoder),
 * and only pauses the stream between whole messages, so HTTP/2 flow control bounds nothing while a message is
 * unfinished: each stream may hold up to `--rds-max-receive-size`, each connection that times its streams, each
 * identity that times its connections (10,000 by default), before any route-name budget sees a byte. This counts,
 * per stream, the bytes of its current unfinished message (the gRPC Length-Prefixed-Message framing: a 1-byte flag
 * and a 4-byte big-endian length, then the message; grpc/grpc doc/PROTOCOL-HTTP2.md, tag v1.68.0), sums them per
 * identity, and resets the stream that takes its identity over the budget with RST_STREAM ENHANCE_YOUR_CALM, which
 * gRPC clients report as RESOURCE_EXHAUSTED (same document, "Errors": ENHANCE_YOUR_CALM maps to RESOURCE_EXHAUSTED
 * "with additional error detail indicating that too much memory is being used"). A stream's share is let go when
 * its message completes or the stream ends; the other streams of the connection go on.
 */
import { constants, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import type { Server } from 'node:net';

const PREFIX = 5;

/** How far the current message of one stream has come. */
class MessageProgress {
  private readonly prefix = Buffer.alloc(PREFIX);
  private prefixRead = 0;
  private remaining = 0;
  /** Bytes of the current unfinished message received so far, its prefix included. */
  held = 0;

  /** Reads one DATA chunk; returns the change of `held`. */
  feed(chunk: Buffer): number {
    const before = this.held;
    for (let i = 0; i < chunk.length;) {
      if (this.prefixRead < PREFIX) {
        const n = Math.min(PREFIX - this.prefixRead, chunk.length - i);
        chunk.copy(this.prefix, this.prefixRead, i, i + n);
        this.prefixRead += n;
        this.held += n;
        i += n;
        if (this.prefixRead === PREFIX) {
          this.remaining = this.prefix.readUInt32BE(1);
          if (this.remaining === 0) this.complete();
        }
      } else {
        const n = Math.min(this.remaining, chunk.length - i);
        this.remaining -= n;
        this.held += n;
        i += n;
        if (this.remaining === 0) this.complete();
      }
    }
    return this.held - before;
  }

  private complete(): void {
    this.prefixRead = 0;
    this.held = 0;
  }
}

/**
 * Contract: `attach` hooks the sessions of HTTP/2 servers; `identityOf` is called once per session, at its first
 * stream. `onRefuse` is called for each stream reset that had not been answered yet, before the reset. `held` is cheap (tests and heldState).
 */
export class InFlightBudget {
  private readonly byIdentity = new Map<string, number>();
  private total = 0;

  constructor(
    /** Bytes of unfinished messages one identity may have the server hold (0: no limit). */
    private readonly maxBytesPerIdentity: number,
    private readonly identityOf: (session: Http2Session) => string,
    private readonly onRefuse: (identity: string, message: string) => void,
  ) {}

  /** Bytes of unfinished messages held now, and the identities holding some. */
  get held(): { readonly bytes: number; readonly identities: number } {
    return { bytes: this.total, identities: this.byIdentity.size };
  }

  attach(servers: readonly Server[]): void {
    for (const server of servers) {
      server.on('session', (session: Http2Session) => {
        let identity: string | undefined;
        session.on('stream', (stream: ServerHttp2Stream) =>
          this.watch(stream, (identity ??= this.identityOf(session))),
        );
      });
    }
  }

  private add(identity: string, delta: number): number {
    const now = (this.byIdentity.get(identity) ?? 0) + delta;
    if (now > 0) this.byIdentity.set(identity, now);
    else this.byIdentity.delete(identity);
    this.total += delta;
    return now;
  }

  private watch(stream: ServerHttp2Stream, identity: string): void {
    const progress = new MessageProgress();
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      this.add(identity, -progress.held);
    };
    // grpc-js attached its own reader (and paused the stream) before this listener: it sees every chunk too.
    stream.on('data', (chunk: Buffer) => {
      if (done) return;
      const held = this.add(identity, progress.feed(chunk));
      const max = this.maxBytesPerIdentity;
      if (max <= 0 || held <= max) return;
      release();
      // A stream already answered (its status sent: refused for another reason) is reset without a second refusal;
      // grpc-js keeps reading it until it closes.
      if (!stream.writableEnded)
        this.onRefuse(
          identity,
          `${identity} has ${held} bytes of unfinished messages in flight; the budget is ${max} bytes per identity (--rds-max-in-flight-bytes-per-identity)`,
        );
      stream.close(constants.NGHTTP2_ENHANCE_YOUR_CALM);
    });
    stream.once('close', release);
  }
}
