/** `--config-source mcp`: istiod over MCP-over-xDS for the Istio kinds (the Kubernetes API source reads the rest). */
import { firstHostIp, McpClient, type McpStatusSnapshot } from '../controller/mcp/index.ts';
import type { ConfigSource, UnavailableKind } from '../model/config-source.ts';
import type { SourceContext } from './source-context.ts';

/** The MCP client, with its stream's status (the MCP metrics). */
export class McpConfigSource implements ConfigSource {
  readonly name = 'istiod (MCP)';
  readonly partial = false;
  private readonly mcp: McpClient;

  constructor(c: SourceContext) {
    const o = c.source;
    const { rootNamespace, clusterDomain, revision, istioApiVersion } = c.mesh;
    this.mcp = new McpClient(
      {
        address: o.istiodAddress,
        tls: o.istiodTls,
        ...(o.istiodRootCertFile ? { rootCertFile: o.istiodRootCertFile } : {}),
        ...(o.istiodTokenFile ? { tokenFile: o.istiodTokenFile } : {}),
        ...(c.clientIdentity ? { clientIdentity: c.clientIdentity } : {}),
        apiVersion: istioApiVersion,
        revision,
        node: { podName: c.podName, namespace: rootNamespace, podIp: firstHostIp(), clusterDomain },
        ...(c.backoff ? { backoff: c.backoff } : {}),
      },
      // Ambient: Gateway API kinds over MCP; the Kubernetes source reads the Namespaces (MCP serves none).
      { store: c.store, logger: c.logger, ...(c.ambient === true ? { ambient: c.store } : {}) },
    );
  }

  start(): Promise<void> {
    this.mcp.start();
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return this.mcp.stop();
  }

  get synced(): boolean {
    return this.mcp.synced;
  }

  whenSynced(): Promise<void> {
    return this.mcp.whenSynced();
  }

  pending(): string {
    return this.name;
  }

  unavailableKinds(): readonly UnavailableKind[] {
    return [];
  }

  status(): McpStatusSnapshot {
    return this.mcp.status();
  }
}
