// What one client may make the registry's MCP server hold (src/registry/mcp/limits.ts): a request over a limit
// ends its stream with RESOURCE_EXHAUSTED naming the limit, keeps nothing, and the connection's other streams go
// on; HTTP/2 announces the streams per connection.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { ADS_METHOD, loadMcpProtos } from '../../../src/kit/mcp-protos.ts';
import { DEFAULT_MCP_LIMITS } from '../../../src/registry/mcp/limits.ts';
import { ServiceEntryMcpServer } from '../../../src/registry/mcp/server.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { endpoint, registryEntry } from './entries.ts';
import { INSECURE } from './tls.ts';

const protos = loadMcpProtos();
const SE_V1 = 'networking.istio.io/v1/ServiceEntry';
const L = DEFAULT_MCP_LIMITS;

/** One ADS stream on `client`: counts responses, resolves `status` when it ends. */
function adsStream(client: grpc.Client) {
  const { DiscoveryRequest } = protos;
  const call = client.makeBidiStreamRequest(
    ADS_METHOD,
    (r: Record<string, unknown>) =>
      Buffer.from(DiscoveryRequest.encode(DiscoveryRequest.fromObject(r)).finish()),
    (b: Buffer) => b,
  );
  let responses = 0;
  const waiters: { n: number; resolve(): void }[] = [];
  call.on('data', () => {
    responses++;
    for (const w of waiters.filter((x) => x.n <= responses)) w.resolve();
  });
  call.on('error', () => {});
  // Every stream here ends within 5 s (a refusal or a cancel); CANCELLED after that says it was not refused.
  const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
  const timer = setTimeout(() => call.cancel(), 5_000);
  void status.then(() => clearTimeout(timer));
  return {
    status,
    send: (r: Record<string, unknown>) => call.write(r),
    /** Resolves once `n` responses arrived. */
    answered: (n: number) =>
      responses >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    close: () => call.cancel(),
  };
}

describe('ServiceEntryMcpServer limits (defaults)', { timeout: 20_000 }, () => {
  let server: ServiceEntryMcpServer;
  let port: number;
  let client: grpc.Client;

  before(async () => {
    server = new ServiceEntryMcpServer({ host: '127.0.0.1', port: 0, logger: silentLogger, tls: INSECURE });
    server.update([registryEntry('org.apache.dubbo.samples.DemoService', [endpoint('10.1.0.1')])]);
    port = await server.start();
    client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });
  after(async () => {
    client.close();
    await server.stop();
  });

  /** A stream that sends `req` and must end with RESOURCE_EXHAUSTED matching `details`; another still served. */
  async function refused(req: Record<string, unknown>, details: RegExp): Promise<void> {
    const s = adsStream(client);
    s.send(req);
    const status = await s.status;
    assert.equal(status.code, grpc.status.RESOURCE_EXHAUSTED, status.details);
    assert.match(status.details, details);
    const ok = adsStream(client);
    ok.send({ typeUrl: SE_V1, node: { id: 'istiod-0' } });
    await ok.answered(1);
    ok.close();
  }

  it(`a type_url over ${L.maxTypeUrlBytes} bytes`, async () => {
    const typeUrl = `networking.istio.io/v1/${'x'.repeat(L.maxTypeUrlBytes)}`;
    await refused({ typeUrl }, /^type_url is 279 bytes; at most 256 are accepted$/);
  });

  it(`a node.id over ${L.maxNodeIdBytes} bytes`, async () => {
    const id = 'sidecar~'.padEnd(L.maxNodeIdBytes + 1, 'n');
    await refused({ typeUrl: SE_V1, node: { id } }, /^node\.id is 4097 bytes; at most 4096 are accepted$/);
  });

  it(`a message over ${L.maxReceiveBytes} bytes`, async () => {
    const id = 'x'.repeat(L.maxReceiveBytes);
    await refused({ typeUrl: SE_V1, node: { id } }, /larger than max/);
  });

  it(`one type URL more than ${L.maxTypeUrlsPerStream} on one stream`, async () => {
    const s = adsStream(client);
    for (let i = 0; i < L.maxTypeUrlsPerStream; i++) s.send({ typeUrl: `example.com/v1/Kind${i}` });
    await s.answered(L.maxTypeUrlsPerStream);
    // Those watched may be asked again; a new one is refused.
    s.send({ typeUrl: 'example.com/v1/Kind0' });
    s.send({ typeUrl: 'example.com/v1/OneMore' });
    const status = await s.status;
    assert.equal(status.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.equal(status.details, 'the stream already watches 256 type URLs; at most 256 are accepted');
    assert.equal(server.refused.get('limit'), 3, 'type_url, node.id and this one');
  });

  it(`announces ${L.maxStreamsPerConnection} streams per connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS)`, async () => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    try {
      const settings = await new Promise<http2.Settings>((resolve) =>
        session.once('remoteSettings', resolve),
      );
      assert.equal(settings.maxConcurrentStreams, L.maxStreamsPerConnection);
    } finally {
      session.destroy();
    }
  });
});
