/**
 * Limits of the controller's HTTP servers (admin, webhook) against slow and oversized clients: node:http drops a
 * connection whose headers are not complete within `headersTimeoutMs` or whose request is not complete within
 * `requestTimeoutMs` (answering 408 when it still can), refuses headers larger than `maxHeaderBytes` (431), and
 * closes kept-alive connections idle for `keepAliveTimeoutMs`.
 */
export interface HttpLimits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxHeaderBytes: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
};

/** The node:http / node:https server options for `limits` (the TLS handshake is bounded like the headers). */
export function httpServerOptions(limits: Partial<HttpLimits> = {}) {
  const l = { ...DEFAULT_HTTP_LIMITS, ...limits };
  const headersTimeout = Math.min(l.headersTimeoutMs, l.requestTimeoutMs);
  return {
    headersTimeout,
    requestTimeout: l.requestTimeoutMs,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    maxHeaderSize: l.maxHeaderBytes,
    handshakeTimeout: headersTimeout,
    // How often node checks the two timeouts (default 30 s, which would let a slow client stay that long).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
}
