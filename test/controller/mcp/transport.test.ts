// The MCP channel as istiod sees it on the wire: an HTTP/2 server of node's own reads the client's SETTINGS.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { loadMcpProtos } from '../../../src/controller/mcp/protos.ts';
import { AdsTransport, MCP_FLOW_CONTROL_WINDOW } from '../../../src/controller/mcp/transport.ts';

describe('MCP transport', () => {
  it('advertises a receive window of 16 MiB, so a multi-megabyte answer needs no window round trips', async () => {
    const server = http2.createServer();
    const settings = new Promise<http2.Settings>((resolve) =>
      server.on('session', (s) => s.once('remoteSettings', resolve)),
    );
    server.on('stream', (stream) => stream.respond({ ':status': 200, 'content-type': 'application/grpc' }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const transport = new AdsTransport({ address: `127.0.0.1:${port}`, tls: false }, loadMcpProtos());
    try {
      const stream = await transport.open();
      stream.on('error', () => {});
      const remote = await settings;
      assert.equal(MCP_FLOW_CONTROL_WINDOW, 16 * 1024 * 1024);
      assert.equal(remote.initialWindowSize, MCP_FLOW_CONTROL_WINDOW);
      stream.cancel();
    } finally {
      transport.close();
      server.close();
    }
  });
});
