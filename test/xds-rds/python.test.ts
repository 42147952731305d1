// An independent client (Debian python3-grpcio: C-core + BoringSSL) against the RDS server over mTLS.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROUTE_CONFIGURATION_TYPE } from '../../src/model/constants.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';
import { foreignCa, meshClient, writeCertDir, type CertDir } from '../fakes/test-ca.ts';
import { hasPythonGrpc, pythonScript, runPython as runScript, waitFor } from '../support/python.ts';

const SCRIPT = pythonScript('rds_client.py');
const hasGrpc = hasPythonGrpc;
const runPython = (args: string[], onLine?: (l: PyLine) => void) => runScript<PyLine>(SCRIPT, args, onLine);

const HOST = 'py.example';
const NAME = `${HOST}_20880`;
const se = serviceEntry('ns', 'py', {
  hosts: [HOST],
  ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
});
const routes = (subset: string) =>
  buildRouteConfigurations(
    storeOf([
      se,
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

interface PyLine {
  version?: string;
  nonce?: string;
  typeUrl?: string;
  routes?: { typeUrl: string; name: string; clusters: string[] }[];
  refused?: boolean;
  code?: string;
  details?: string;
}

describe(
  'python3-grpcio client',
  { skip: hasGrpc ? false : 'python3-grpcio not installed (.ci/run installs it)' },
  () => {
    let certs: CertDir;
    let foreign: CertDir;
    let cache: SnapshotCache;
    let server: RdsServer;
    let port: number;

    before(async () => {
      certs = writeCertDir();
      foreign = writeCertDir(foreignCa());
      cache = new SnapshotCache();
      cache.setRoutes(routes('v1'));
      server = new RdsServer(
        { host: '127.0.0.1', port: 0, logger: silentLogger, tls: { ...certs, pollIntervalMs: 60_000 } },
        cache,
      );
      port = await server.start();
    });

    after(async () => {
      await server.stop();
      certs.remove();
      foreign.remove();
    });

    it('subscribes with a client certificate, receives the routes, ACKs, and receives an update', async () => {
      const res = await runPython(
        ['full', String(port), certs.caFile, certs.clientCertFile, certs.clientKeyFile, NAME],
        (line) => {
          // Push the update once the server has processed the ACK of the first response.
          if (line.nonce === '1')
            void waitFor(() => server.metrics.acks >= 1).then(() => cache.setRoutes(routes('v2')));
        },
      );
      assert.equal(res.code, 0, res.stderr);
      const [first, second] = res.lines;
      assert.equal(first?.typeUrl, ROUTE_CONFIGURATION_TYPE);
      assert.deepEqual(first?.routes, [
        { typeUrl: ROUTE_CONFIGURATION_TYPE, name: NAME, clusters: [`outbound|20880|v1|${HOST}`] },
      ]);
      assert.equal(second?.nonce, '2');
      assert.notEqual(second?.version, first?.version);
      assert.deepEqual(second?.routes?.[0]?.clusters, [`outbound|20880|v2|${HOST}`]);
      assert.ok(server.metrics.acks >= 1, 'the first response was ACKed');
      assert.equal(server.metrics.nacks, 0);
    });

    it('is refused without a client certificate', async () => {
      const res = await runPython(['refused', String(port), certs.caFile]);
      assert.equal(res.code, 0, JSON.stringify(res.lines) + res.stderr);
      assert.equal(res.lines[0]?.code, 'UNAVAILABLE');
    });

    it('is refused with a client certificate from another CA', async () => {
      const res = await runPython([
        'refused',
        String(port),
        certs.caFile,
        foreign.clientCertFile,
        foreign.clientKeyFile,
      ]);
      assert.equal(res.code, 0, JSON.stringify(res.lines) + res.stderr);
      assert.equal(res.lines[0]?.code, 'UNAVAILABLE');
    });

    describe('identity checks (only the namespace shop may read routes)', () => {
      let guarded: RdsServer;
      let guardedPort: number;
      /** Writes a mesh client certificate with these URI SANs; returns [cert file, key file]. */
      const clientFiles = (name: string, uris: readonly string[]): [string, string] => {
        const c = meshClient(uris);
        const [cert, key] = [path.join(certs.dir, `${name}.crt`), path.join(certs.dir, `${name}.key`)];
        writeFileSync(cert, c.cert);
        writeFileSync(key, c.key);
        return [cert, key];
      };
      const refusedWith = async (name: string, uris: readonly string[]) => {
        const res = await runPython([
          'refused',
          String(guardedPort),
          certs.caFile,
          ...clientFiles(name, uris),
        ]);
        assert.equal(res.code, 0, JSON.stringify(res.lines) + res.stderr);
        return res.lines[0];
      };

      before(async () => {
        guarded = new RdsServer(
          {
            host: '127.0.0.1',
            port: 0,
            logger: silentLogger,
            tls: { ...certs, pollIntervalMs: 60_000 },
            peers: { trustDomain: 'cluster.local', trustDomainAliases: [], allowedNamespaces: ['shop'] },
          },
          cache,
        );
        guardedPort = await guarded.start();
      });

      after(() => guarded.stop());

      it('accepts a workload of the trust domain in an allowed namespace', async () => {
        const files = clientFiles('shop', ['spiffe://cluster.local/ns/shop/sa/orders']);
        const res = await runPython(['once', String(guardedPort), certs.caFile, ...files, NAME]);
        assert.equal(res.code, 0, res.stderr);
        assert.equal(res.lines[0]?.routes?.[0]?.name, NAME);
      });

      it('refuses another trust domain with PERMISSION_DENIED', async () => {
        const line = await refusedWith('foreign-td', ['spiffe://evil.example/ns/shop/sa/orders']);
        assert.equal(line?.code, 'PERMISSION_DENIED');
        assert.match(line?.details ?? '', /trust domain "evil\.example"/);
      });

      it('refuses a certificate without a URI SAN with PERMISSION_DENIED', async () => {
        const line = await refusedWith('no-san', []);
        assert.equal(line?.code, 'PERMISSION_DENIED');
        assert.match(line?.details ?? '', /no SPIFFE URI SAN/);
      });

      it('refuses a namespace that is not allowed with PERMISSION_DENIED', async () => {
        const line = await refusedWith('other-ns', ['spiffe://cluster.local/ns/default/sa/orders']);
        assert.equal(line?.code, 'PERMISSION_DENIED');
        assert.match(line?.details ?? '', /namespace "default" may not read routes/);
      });
    });
  },
);
