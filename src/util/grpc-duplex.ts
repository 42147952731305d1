import * as grpc from '@grpc/grpc-js';

/** A status a server ends a call with (`call.emit('error', status)`). */
export interface EndStatus {
  readonly code: grpc.status;
  readonly details: string;
}

export interface DuplexHandlers<Req> {
  /** One request of the stream. A throw is a bug: `failed` logs it and the stream ends with INTERNAL. */
  readonly request: (req: Req) => void;
  /** Releases the stream; called on every way a stream ends, so possibly more than once (make it idempotent). */
  readonly end: () => void;
  readonly failed: (err: unknown) => void;
  /** A stream error (the client went away, a reset); `end` follows. */
  readonly errored: (err: unknown) => void;
}

/**
 * The lifecycle of one server-side gRPC duplex stream, as the RDS and MCP servers serve theirs: requests go to
 * `request`; the client's half-close ends ours; cancel, error and close release the stream.
 */
export function serveDuplex<Req, Res>(call: grpc.ServerDuplexStream<Req, Res>, h: DuplexHandlers<Req>): void {
  call.on('data', (req: Req) => {
    try {
      h.request(req);
    } catch (err) {
      h.failed(err);
      h.end();
      call.emit('error', { code: grpc.status.INTERNAL, details: 'internal error' });
    }
  });
  call.on('end', () => {
    h.end();
    call.end();
  });
  call.on('cancelled', h.end);
  call.on('error', (err) => {
    h.errored(err);
    h.end();
  });
  call.on('close', h.end);
}

/** The status open streams end with on a graceful stop: clients reconnect (to another replica). */
export const SHUTTING_DOWN: EndStatus = { code: grpc.status.UNAVAILABLE, details: 'server shutting down' };

/** How long shutDown waits for connections to close after their streams ended. */
export const STOP_GRACE_MS = 2000;

/**
 * Stops a server whose streams were ended (each with its status): closes the listener and every connection
 * (GOAWAY) once their streams are done, so the statuses reach the clients; what is still open after
 * `graceMs` is cut off (forceShutdown). Never rejects.
 */
export function shutDown(server: grpc.Server, graceMs = STOP_GRACE_MS): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}

/**
 * grpc-js's bind failure (`No address added out of total 1 resolved errors: [listen EADDRINUSE: ...]`) as the
 * errors it lists (`listen EADDRINUSE: address already in use 127.0.0.1:15010`); other errors unchanged.
 */
export function bindFailure(err: Error): Error {
  const listed = /^No address added out of total \d+ resolved errors: \[(.*)\]$/s.exec(err.message);
  return listed?.[1] ? new Error(listed[1], { cause: err }) : err;
}
