// The RDS server on the istiod provider: an open stream survives a certificate rotation and keeps receiving
// pushes while a new handshake sees the new certificate; a new mesh root in the watched root file admits clients
// of the new CA without a restart.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import type { IstiodIdentityProvider } from '../../src/identity/istiod.ts';
import type { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { generateDevCertificates } from '../../src/tools/dev-certs.ts';
import { caFiles, IDENTITY, istiodProvider, TTL_MS, type CaFiles } from '../fakes/istio-ca/harness.ts';
import { FakeIstioCa } from '../fakes/istio-ca/server.ts';
import { ackOf, RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { spiffeServerCheck } from '../../src/kit/certs/spiffe.ts';
import { watchRoutes } from '../../src/tools/route-watcher.ts';
import { testCa } from '../fakes/test-ca.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';

const HOST = 'rot.example';
const NAME = `${HOST}_20880`;
const routes = (subset: string) =>
  buildRouteConfigurations(
    storeOf([
      serviceEntry('ns', 'rot', {
        hosts: [HOST],
        ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
      }),
      metaRouter('ns', 'mr', {
        hosts: [HOST],
        routes: [
          {
            name: 'r',
            route: [{ destination: { host: HOST, subset } }],
            requestMutation: [],
            responseMutation: [],
          },
        ],
      }),
    ]),
  ).routes;

/** One TLS handshake as a proxy: the server's certificate, or the error that ended the handshake. */
function handshake(port: number, client: { cert: string; key: string }): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const sock = tls.connect(
      {
        host: '127.0.0.1',
        port,
        ca: testCa().ca,
        ...client,
        ALPNProtocols: ['h2'],
        checkServerIdentity: spiffeServerCheck(IDENTITY),
      },
      () => {
        const raw = sock.getPeerCertificate().raw;
        // A refused client certificate is reported by the server after the client's handshake completed.
        sock.once('data', () => {
          sock.destroy();
          resolve(new X509Certificate(raw));
        });
        sock.once('error', reject);
        sock.once('end', () => reject(new Error('closed by the server')));
      },
    );
    sock.on('error', reject);
  });
}

describe('identity/istiod: the RDS server across certificate and root rotations', () => {
  let ca: FakeIstioCa;
  let files: CaFiles;
  let provider: IstiodIdentityProvider;
  let clock: ManualClock;
  let cache: SnapshotCache;
  let server: RdsServer;
  let port: number;
  const meshClient = { cert: testCa().clientCert, key: testCa().clientKey };

  before(async () => {
    ca = await FakeIstioCa.start();
    files = caFiles(ca);
    ({ provider, clock } = istiodProvider(ca, files));
    provider.start();
    await provider.renew();
    cache = new SnapshotCache();
    cache.setRoutes(routes('v1'));
    server = new RdsServer({ host: '127.0.0.1', port: 0, logger: silentLogger, tls: { provider } }, cache);
    port = await server.start();
    await new Promise(setImmediate); // grpc-js hears the provider's material on the next turn
  });

  after(async () => {
    await server.stop();
    provider.close();
    ca.close();
    files.remove();
  });

  it('serves the issued certificate; after a rotation the open stream stays and new handshakes see the new one', async () => {
    const first = await handshake(port, meshClient);
    assert.equal(first.subjectAltName, `URI:${IDENTITY}`);
    const client = new RdsTestClient(
      port,
      { ca: testCa().ca, ...meshClient, serverSpiffeId: IDENTITY },
      '127.0.0.1',
    );
    try {
      const s = client.sotw();
      s.send(sotwRequest([NAME]));
      const r1 = await s.next();
      s.send(ackOf(r1, [NAME]));

      clock.advance(0.8 * TTL_MS);
      await provider.renew();
      assert.equal(ca.issued >= 2, true);
      const second = await handshake(port, meshClient);
      assert.notEqual(second.serialNumber, first.serialNumber);
      assert.equal(second.serialNumber, new X509Certificate(provider.current()!.cert).serialNumber);

      cache.setRoutes(routes('v2'));
      const r2 = await s.next();
      assert.notEqual(
        r2.versionInfo,
        r1.versionInfo,
        'the stream opened before the rotation still receives pushes',
      );
      assert.equal(server.metrics.streamsActive, 1);
    } finally {
      client.close();
    }
  });

  it('aeraki routes verifies the server by its SPIFFE ID (--server-spiffe-id), refusing another one', async () => {
    const watch = (serverSpiffeId: string) =>
      new Promise<string>((resolve) => {
        const w = watchRoutes({
          address: `127.0.0.1:${port}`,
          tls: {
            ca: Buffer.from(testCa().ca),
            cert: Buffer.from(meshClient.cert),
            key: Buffer.from(meshClient.key),
          },
          names: [NAME],
          serverSpiffeId,
          onAnswer: (a) => {
            w.close();
            resolve(a.routes.map((x) => (x as { name?: string }).name).join(','));
          },
          onDisconnect: (status) => {
            w.close();
            resolve(`ended ${status.code}`);
          },
        });
      });
    assert.equal(await watch(IDENTITY), NAME);
    assert.equal(await watch('spiffe://cluster.local/ns/istio-system/sa/impostor'), 'ended 14');
  });

  it('a new mesh root in the watched file admits clients of the new CA without a restart', async () => {
    const next = generateDevCertificates({ caCommonName: 'Next mesh root', clientCommonName: 'next-proxy' });
    const nextClient = { cert: next.clientCert, key: next.clientKey };
    await assert.rejects(handshake(port, nextClient));
    files.writeRoot(`${testCa().ca}${next.ca}`);
    assert.equal(provider.loadRoot(), true);
    const seen = await handshake(port, nextClient);
    assert.equal(seen.subjectAltName, `URI:${IDENTITY}`);
    await handshake(port, meshClient); // the old root still admits its clients during the rotation
    files.writeRoot('not a certificate');
    assert.equal(provider.loadRoot(), false, 'an unusable root file keeps the current root');
    await handshake(port, nextClient);
  });
});
