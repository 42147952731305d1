// `aeraki proxy-status` through the real CLI against a debug listener serving /debug/proxies from a real RDS
// server's AckTracker: one proxy acknowledges its route, another rejects its own; and a controller not running.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { proxiesDocument } from '../../src/app/debug.ts';
import { ROUTE_CONFIGURATION_TYPE } from '../../src/model/constants.ts';
import { AdminServer } from '../../src/ops/admin-server.ts';
import { silentLogger } from '../../src/util/logger.ts';
import type { RouteConfigurationJson } from '../../src/xds-rds/route-json.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { ackOf, RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { waitFor } from '../e2e/support.ts';
import { cliArgs, run } from '../support/process.ts';

const GOOD = 'dubbo.shop.svc.cluster.local_20880';
const BAD = 'thrift.shop.svc.cluster.local_9090';
const node = (pod: string) => ({ id: `sidecar~10.0.0.1~${pod}.shop~shop.svc.cluster.local` });
const ERROR =
  "route 'dummy/0': unknown cluster 'outbound|9090|v3|thrift.shop.svc.cluster.local' (no such subset)";

const route = (name: string): RouteConfigurationJson => ({
  name,
  virtualHosts: [
    { name: 'dummy', domains: ['*'], routes: [{ match: { prefix: '/' }, route: { cluster: 'c' } }] },
  ],
});

describe('aeraki proxy-status (the CLI)', () => {
  const cache = new SnapshotCache();
  const rds = new RdsServer(
    { host: '127.0.0.1', port: 0, logger: silentLogger, tls: { insecure: true } },
    cache,
  );
  const debug = new AdminServer({
    address: { host: '127.0.0.1', port: 0 },
    paths: 'debug',
    debug: {
      proxies: () =>
        proxiesDocument(rds.acks, {
          routeOrigin: (name) => (name === GOOD ? 'MetaRouter/shop/dubbo' : 'MetaRouter/shop/thrift'),
        }),
    },
    logger: silentLogger,
  });
  let client: RdsTestClient;
  let debugPort = 0;

  before(async () => {
    cache.setRoutes([route(GOOD), route(BAD)]);
    const port = await rds.start();
    debugPort = (await debug.start()).port;
    client = new RdsTestClient(port, 'insecure', '127.0.0.1');
    const good = client.sotw();
    good.send(sotwRequest([GOOD], { node: node('web-1') }));
    good.send(ackOf(await good.next(), [GOOD]));
    const bad = client.sotw();
    bad.send(sotwRequest([BAD], { node: node('web-2') }));
    const r = await bad.next();
    bad.send({
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      resourceNames: [BAD],
      versionInfo: '',
      responseNonce: r.nonce,
      errorDetail: { code: 3, message: ERROR },
    });
    await waitFor(
      () => rds.acks.summary(GOOD)?.acked === 1 && rds.acks.summary(BAD)?.rejected === 1,
      'the answers',
    );
  });

  after(async () => {
    client.close();
    await debug.stop();
    await rds.stop();
  });

  const cli = (...args: string[]) =>
    run(
      process.execPath,
      cliArgs(['proxy-status', `--debug-address=127.0.0.1:${debugPort}`, ...args]),
      60_000,
    );

  it('prints one row per source object, the proxies per proxy, one proxy, and JSON', async () => {
    const [table, proxies, one, json, wide] = await Promise.all([
      cli(),
      cli('--proxies'),
      cli('web-2.shop'),
      cli('-o', 'json'),
      cli('-o', 'wide'),
    ]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^SOURCE\s+ACKED\s+PENDING\s+REJECTED\s+FIRST ERROR\n/);
    assert.match(table.stdout, /^MetaRouter\/shop\/dubbo\s+1\s+0\s+0$/m);
    assert.match(
      table.stdout,
      /^MetaRouter\/shop\/thrift\s+0\s+0\s+1\s+web-2\.shop: route 'dummy\/0': unknown cluster 'outbound\|90\.\.\.$/m,
    );
    assert.match(table.stderr, /listener rejections: not asked/);

    assert.equal(proxies.code, 0, proxies.stderr);
    assert.match(
      proxies.stdout,
      /^PROXY\s+NAMESPACE\s+ROUTES\s+ACKED\s+PENDING\s+REJECTED\s+LISTENERS\s+FIRST ERROR$/m,
    );
    assert.match(proxies.stdout, /^web-1\.shop\s+shop\s+1\s+1\s+0\s+0\s+-$/m);
    assert.match(
      proxies.stdout,
      /^web-2\.shop\s+shop\s+1\s+0\s+0\s+1\s+-\s+route 'dummy\/0': unknown cluster/m,
    );

    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /^Proxy: sidecar~10\.0\.0\.1~web-2\.shop~shop\.svc\.cluster\.local$/m);
    assert.match(
      one.stdout,
      new RegExp(`^${BAD.replaceAll('.', '\\.')}\\s+MetaRouter/shop/thrift\\s+REJECTED\\s`, 'm'),
    );

    assert.equal(json.code, 0, json.stderr);
    const parsed = JSON.parse(json.stdout) as {
      sources: { source: string; rejected: number; firstError?: { detail: string } }[];
    };
    assert.deepEqual(
      parsed.sources.map((s) => [s.source, s.rejected]),
      [
        ['MetaRouter/shop/dubbo', 0],
        ['MetaRouter/shop/thrift', 1],
      ],
    );
    assert.equal(parsed.sources[1]?.firstError?.detail, ERROR, 'JSON has the whole error');

    assert.equal(wide.code, 0, wide.stderr);
    assert.ok(wide.stdout.includes(`${node('web-2').id}: route ${BAD}: ${ERROR}`), wide.stdout);
  });

  it('exits 1 naming the address when no controller listens there, or the proxy is unknown', async () => {
    const [down, unknown] = await Promise.all([
      run(process.execPath, cliArgs(['proxy-status', '--debug-address', '127.0.0.1:1']), 60_000),
      cli('nobody.shop'),
    ]);
    assert.equal(down.code, 1);
    assert.equal(down.stdout, '');
    assert.match(
      down.stderr,
      /^error: 127\.0\.0\.1:1: cannot reach the controller's debug listener: ECONNREFUSED/,
    );
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /proxy nobody\.shop is not connected/);
  });
});
