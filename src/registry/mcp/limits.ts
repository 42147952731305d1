/**
 * What one client may make the registry's MCP server hold. Its client is istiod reading a config source: one
 * connection, one ADS stream, a few KiB of node on the first request, then one request per kind it knows, each
 * naming a type URL such as `networking.istio.io/v1alpha3/ServiceEntry` (istio/istio 1.24
 * pkg/config/schema/collections: about 30 kinds, the longest URL under 70 bytes). The defaults are far above that
 * and bound one stream to 64 KiB of type URLs, one connection to 100 streams of 1 MiB messages.
 */
export interface McpLimits {
  /** `grpc.max_receive_message_length`: largest request message (bytes). */
  readonly maxReceiveBytes: number;
  /** `grpc.max_concurrent_streams`: streams one HTTP/2 connection may have open at once. */
  readonly maxStreamsPerConnection: number;
  /** Bytes of one request's `type_url`. */
  readonly maxTypeUrlBytes: number;
  /** Bytes of a request's `node.id` (kept per stream for the logs). */
  readonly maxNodeIdBytes: number;
  /** Distinct type URLs one stream may watch (each keeps its last nonce and version). */
  readonly maxTypeUrlsPerStream: number;
}

export const DEFAULT_MCP_LIMITS: McpLimits = {
  maxReceiveBytes: 1 << 20,
  maxStreamsPerConnection: 100,
  maxTypeUrlBytes: 256,
  maxNodeIdBytes: 4096,
  maxTypeUrlsPerStream: 256,
};
