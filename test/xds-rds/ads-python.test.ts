// An independent ADS client (Debian python3-grpcio: C-core + BoringSSL) plays a waypoint against the RDS server's
// listener over mTLS: CDS and LDS wildcard, EDS and routes by name, each ACKed; then one service change arrives.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CLUSTER_TYPE,
  DUBBO_ROUTE_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  META_ROUTE_TYPE,
  THRIFT_ROUTE_TYPE,
} from '../../src/model/ambient/xds.ts';
import { meshClient, testCa, writeCertDir, type CertDir } from '../fakes/test-ca.ts';
import { hasPythonGrpc, pythonScript, runPython, waitFor } from '../support/python.ts';
import { GATEWAY, startAds, type AdsHarness } from './ads-harness.ts';
import { dubbo, META_ROUTE_NAME } from './ads-shapes.ts';

const SCRIPT = pythonScript('ads_client.py');

interface PyLine {
  typeUrl?: string;
  version?: string;
  nonce?: string;
  resources?: { name: string; chains?: string[] }[];
  subscribed?: boolean;
  refused?: boolean;
  code?: string;
  details?: string;
}

describe(
  'python3-grpcio waypoint (ADS)',
  { skip: hasPythonGrpc ? false : 'python3-grpcio not installed (.ci/run installs it)' },
  () => {
    let h: AdsHarness;
    let certs: CertDir;
    /** [ca, cert, key] files of a client certificate `spiffe://cluster.local/ns/<ns>/sa/<sa>`. */
    const files = (ns: string, sa: string): string[] => {
      const c = meshClient([`spiffe://cluster.local/ns/${ns}/sa/${sa}`], sa);
      const [cert, key] = [path.join(certs.dir, `${sa}.crt`), path.join(certs.dir, `${sa}.key`)];
      writeFileSync(cert, c.cert);
      writeFileSync(key, c.key);
      return [certs.caFile, cert, key];
    };

    before(async () => {
      h = await startAds();
      certs = writeCertDir(testCa());
    });
    after(async () => {
      await h.stop();
      certs.remove();
    });

    it('subscribes as a waypoint, ACKs every type, and receives one service change', async () => {
      const routes = [
        `${DUBBO_ROUTE_TYPE}=dubbo.shop.svc.cluster.local_20880`,
        `${THRIFT_ROUTE_TYPE}=thrift.shop.svc.cluster.local_9090`,
        `${META_ROUTE_TYPE}=${META_ROUTE_NAME}`,
      ];
      const args = ['waypoint', String(h.port), ...files('shop', 'wp'), 'wp.shop', ...routes];
      const res = await runPython<PyLine>(SCRIPT, args, (line) => {
        if (!line.subscribed) return;
        void waitFor(() => h.server.waypointPrograms.state(GATEWAY).state === 'acked').then(() => {
          const v2 = dubbo('dubbo.shop.svc.cluster.local', '10.96.0.10', ['10.244.0.77']);
          h.cache.apply([{ gateway: GATEWAY, services: new Map([['Service/shop/dubbo', v2]]) }]);
        });
      });
      assert.equal(res.code, 0, res.stderr);
      const types = res.lines.filter((l) => l.typeUrl).map((l) => [l.typeUrl, l.resources!.length]);
      assert.deepEqual(types, [
        [CLUSTER_TYPE, 5],
        [ENDPOINT_TYPE, 5],
        [LISTENER_TYPE, 1],
        [DUBBO_ROUTE_TYPE, 1],
        [THRIFT_ROUTE_TYPE, 1],
        [META_ROUTE_TYPE, 1],
        [ENDPOINT_TYPE, 5],
      ]);
      const listener = res.lines[2]!.resources![0]!;
      assert.equal(listener.chains!.length, 5);
      assert.deepEqual(listener.chains, [...listener.chains!].sort());
      assert.notEqual(res.lines.at(-1)!.version, res.lines[1]!.version, 'a new EDS version');
      assert.equal(h.server.metrics.nacks, 0);
    });

    it("is refused with another Gateway's certificate", async () => {
      const res = await runPython<PyLine>(SCRIPT, [
        'refused',
        String(h.port),
        ...files('shop', 'intruder'),
        'wp.shop',
      ]);
      assert.equal(res.code, 0, JSON.stringify(res.lines) + res.stderr);
      assert.equal(res.lines[0]?.code, 'PERMISSION_DENIED');
      assert.match(res.lines[0]?.details ?? '', /spiffe:\/\/cluster\.local\/ns\/shop\/sa\/intruder/);
    });
  },
);
