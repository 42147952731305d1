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
/** A route a proxy asks for that the server does not hold. */
const UNSERVED = 'gone.shop.svc.cluster.local_20880';
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
    const asking = client.sotw();
    asking.send(sotwRequest([GOOD, UNSERVED], { node: node('web-3') }));
    asking.send(ackOf(await asking.next(), [GOOD, UNSERVED]));
    await waitFor(
      () => rds.acks.summary(GOOD)?.acked === 2 && rds.acks.summary(BAD)?.rejected === 1,
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
    assert.match(table.stdout, /^SOURCE\s+ACKED\s+PENDING\s+NOT SENT\s+REJECTED\s+FIRST ERROR\n/);
    assert.match(table.stdout, /^MetaRouter\/shop\/dubbo\s+2\s+0\s+0\s+0$/m);
    assert.match(
      table.stdout,
      /^MetaRouter\/shop\/thrift\s+0\s+0\s+0\s+1\s+web-2\.shop: route 'dummy\/0': unknown cluster 'outbound\|90\.\.\.$/m,
    );
    assert.match(table.stderr, /listener rejections: not asked/);

    assert.equal(proxies.code, 0, proxies.stderr);
    assert.match(
      proxies.stdout,
      /^PROXY\s+NAMESPACE\s+ROUTES\s+ACKED\s+PENDING\s+NOT SENT\s+REJECTED\s+LISTENERS\s+FIRST ERROR$/m,
    );
    assert.match(proxies.stdout, /^web-1\.shop\s+shop\s+1\s+1\s+0\s+0\s+0\s+-$/m);
    assert.match(
      proxies.stdout,
      /^web-2\.shop\s+shop\s+1\s+0\s+0\s+0\s+1\s+-\s+route 'dummy\/0': unknown cluster/m,
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
        [`RouteConfiguration/${UNSERVED}`, 0],
      ],
    );
    assert.equal(parsed.sources[1]?.firstError?.detail, ERROR, 'JSON has the whole error');

    assert.equal(wide.code, 0, wide.stderr);
    assert.ok(wide.stdout.includes(`${node('web-2').id}: route ${BAD}: ${ERROR}`), wide.stdout);
  });

  it('shows a route a proxy asks for and was not sent as NOT SENT', async () => {
    const [table, proxies, one, json] = await Promise.all([
      cli(),
      cli('--proxies'),
      cli('web-3.shop'),
      cli('-o', 'json'),
    ]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(
      table.stdout,
      new RegExp(`^RouteConfiguration/${UNSERVED.replaceAll('.', '\\.')}\\s+-\\s+-\\s+1\\s+0$`, 'm'),
    );
    assert.match(proxies.stdout, /^web-3\.shop\s+shop\s+2\s+1\s+0\s+1\s+0\s+-$/m);
    assert.match(one.stdout, new RegExp(`^${UNSERVED.replaceAll('.', '\\.')}\\s+\\S+\\s+NOT SENT\\s`, 'm'));
    const parsed = JSON.parse(json.stdout) as { sources: { source: string; notSent: number }[] };
    assert.deepEqual(
      parsed.sources.map((s) => [s.source, s.notSent]),
      [
        ['MetaRouter/shop/dubbo', 0],
        ['MetaRouter/shop/thrift', 0],
        [`RouteConfiguration/${UNSERVED}`, 1],
      ],
    );
  });

  it('prints YAML with -o yaml, the same rows as JSON, and lists every output in its help', async () => {
    const { parse } = await import('yaml');
    const [yaml, json, detail, help, bad] = await Promise.all([
      cli('-o', 'yaml', '--proxies'),
      cli('-o', 'json', '--proxies'),
      cli('-o', 'yaml', 'web-2.shop'),
      cli('--help'),
      cli('-o', 'xml'),
    ]);
    assert.equal(yaml.code, 0, yaml.stderr);
    assert.deepEqual(parse(yaml.stdout), JSON.parse(json.stdout));
    assert.match(yaml.stdout, /^sources:\n/);
    assert.equal(detail.code, 0, detail.stderr);
    assert.equal((parse(detail.stdout) as { id: string }).id, node('web-2').id);
    assert.equal(help.code, 0);
    assert.match(
      help.stdout.replace(/\s+/g, ' '),
      /-o, --output <format> one of table, wide \(.*\), json or yaml/,
    );
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /table, wide, json, yaml/);
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
