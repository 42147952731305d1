// The istiod MCP-over-xDS source: what app.ts needs to build and observe it.
export { McpClient, type McpClientDeps, type McpClientOptions } from './client.ts';
export { firstHostIp, nodeId, type NodeIdentity } from './node.ts';
export type { McpStoreSink, RejectedObject } from './state.ts';
export type { McpConnectionState, McpStatusSnapshot, McpTypeStatus } from './status.ts';
export { usesTls, type TransportOptions } from './transport.ts';
export { subscribedTypeUrls, type IstioApiMode } from './type-urls.ts';
