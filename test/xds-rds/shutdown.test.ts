// A graceful stop ends open streams with UNAVAILABLE "server shutting down" (not a bare RST_STREAM): the RDS
// server over mTLS (SotW and delta) and the registry's MCP server, each seen by a real grpc-js client.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { ROUTE_CONFIGURATION_TYPE } from '../../src/model/constants.ts';
import { ADS_METHOD, loadMcpProtos } from '../../src/kit/mcp-protos.ts';
import { ServiceEntryMcpServer } from '../../src/registry/mcp/server.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { testCa, writeCertDir } from '../fakes/test-ca.ts';
import { serviceEntry, storeOf } from '../support/builders.ts';
import { endpoint, registryEntry } from '../registry/mcp/entries.ts';

const NAME = 'svc.example_20880';
const routes = buildRouteConfigurations(
  storeOf([
    serviceEntry('ns', 'svc', {
      hosts: ['svc.example'],
      ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
    }),
  ]),
).routes;

describe('graceful stop', () => {
  it('ends open RDS streams (SotW and delta) with UNAVAILABLE "server shutting down"', async () => {
    const certs = writeCertDir();
    const cache = new SnapshotCache();
    cache.setRoutes(routes);
    const server = new RdsServer(
      { host: '127.0.0.1', port: 0, logger: silentLogger, tls: { ...certs, pollIntervalMs: 60_000 } },
      cache,
    );
    const port = await server.start();
    const ca = testCa();
    const client = new RdsTestClient(port, { ca: ca.ca, cert: ca.clientCert, key: ca.clientKey });
    try {
      const sotw = client.sotw();
      sotw.send(sotwRequest([NAME]));
      const delta = client.delta();
      delta.send({
        node: { id: 'delta-proxy' },
        typeUrl: ROUTE_CONFIGURATION_TYPE,
        resourceNamesSubscribe: [NAME],
      });
      assert.equal((await sotw.next()).resources.length, 1);
      assert.equal((await delta.next()).resources.length, 1);
      assert.equal(server.metrics.streamsActive, 2);

      await server.stop();
      for (const [what, stream] of [
        ['sotw', sotw],
        ['delta', delta],
      ] as const) {
        const status = await stream.status;
        assert.equal(status.code, grpc.status.UNAVAILABLE, `${what}: ${status.code} ${status.details}`);
        assert.equal(status.details, 'server shutting down', what);
      }
      assert.equal(server.metrics.streamsActive, 0);
    } finally {
      client.close();
      await server.stop();
      certs.remove();
    }
  });

  it('ends open MCP streams with UNAVAILABLE "server shutting down"', async () => {
    const server = new ServiceEntryMcpServer({
      host: '127.0.0.1',
      port: 0,
      tls: { insecure: true },
      logger: silentLogger,
    });
    server.update([registryEntry('org.example.Demo', [endpoint('10.1.0.1')])]);
    const port = await server.start();
    const { DiscoveryRequest } = loadMcpProtos();
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      const call = client.makeBidiStreamRequest(
        ADS_METHOD,
        (r: Record<string, unknown>) =>
          Buffer.from(DiscoveryRequest.encode(DiscoveryRequest.fromObject(r)).finish()),
        (b: Buffer) => b,
      );
      call.on('error', () => {});
      const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
      const answered = new Promise<void>((resolve) => call.once('data', () => resolve()));
      call.write({ node: { id: 'istiod' }, typeUrl: 'networking.istio.io/v1/ServiceEntry' });
      await answered;

      await server.stop();
      const s = await status;
      assert.equal(s.code, grpc.status.UNAVAILABLE, `${s.code} ${s.details}`);
      assert.equal(s.details, 'server shutting down');
      assert.equal(server.counters.streams, 0);
    } finally {
      client.close();
      await server.stop();
    }
  });
});
