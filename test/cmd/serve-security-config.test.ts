// `aeraki serve` options of who may read routes, the debug listener and the limits (cmd/serve-rows-rds.ts, serve-rows-admin.ts, serve-rows-listeners.ts).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { addOptions, ConfigError } from '../../cmd/rows.ts';
import { SERVE_ROWS, serveConfig } from '../../cmd/serve-config.ts';
import { rdsLimits, rdsPeers } from '../../src/app/options.ts';
import { DEFAULT_RDS_LIMITS } from '../../src/xds-rds/limits.ts';

const EXISTING = path.resolve(import.meta.dirname, '../../package.json');
const TLS = ['--tls-cert-file', EXISTING, '--tls-key-file', EXISTING, '--client-ca-file', EXISTING];

function configOf(argv: string[], env: Record<string, string> = {}) {
  const cmd = addOptions(new Command('serve').exitOverride(), SERVE_ROWS);
  cmd.configureOutput({ writeErr: () => {} });
  cmd.parse(argv, { from: 'user' });
  return serveConfig(cmd, { KUBERNETES_SERVICE_HOST: '10.96.0.1', ...env }, '1.2.3');
}

describe('aeraki serve: identity, debug and limit options', () => {
  it('defaults: trust domain cluster.local, every namespace, no debug endpoints, loopback debug address', () => {
    const c = configOf(TLS);
    assert.deepEqual(rdsPeers(c.rds, c.mesh), {
      trustDomain: 'cluster.local',
      trustDomainAliases: [],
      allowedNamespaces: [],
    });
    assert.equal(c.admin.debugEndpoints, false);
    assert.deepEqual(c.admin.debugAddress, { host: '127.0.0.1', port: 15090 });
    assert.deepEqual(rdsLimits(c.rds), {
      maxReceiveBytes: DEFAULT_RDS_LIMITS.maxReceiveBytes,
      maxStreamsPerConnection: DEFAULT_RDS_LIMITS.maxStreamsPerConnection,
      minPingIntervalMs: DEFAULT_RDS_LIMITS.minPingIntervalMs,
      maxPingStrikes: DEFAULT_RDS_LIMITS.maxPingStrikes,
      maxInvalidRequestsPerConnection: DEFAULT_RDS_LIMITS.maxInvalidRequestsPerConnection,
      maxConnectionsPerIdentity: DEFAULT_RDS_LIMITS.maxConnectionsPerIdentity,
      idleStreamTimeoutMs: DEFAULT_RDS_LIMITS.idleStreamTimeoutMs,
      maxRouteNameBytes: 300,
      maxRouteNamesPerStream: 10_000,
      maxRouteNameBytesPerConnection: 4 << 20,
      maxRouteNameBytesPerIdentity: 64 << 20,
      maxInFlightBytesPerIdentity: 64 << 20,
    });
    assert.deepEqual([c.httpLimits.headersTimeoutMs, c.httpLimits.requestTimeoutMs], [10_000, 30_000]);
  });

  it('reads flags and environment variables (comma lists, sizes, durations, loopback :port)', () => {
    const c = configOf(
      [
        ...TLS,
        '--trust-domain-aliases',
        'old.mesh, other.mesh',
        '--rds-allowed-namespaces=shop,pay',
        '--debug-endpoints',
        '--debug-address',
        ':9999',
        '--rds-max-receive-size',
        '512Ki',
        '--rds-idle-stream-timeout',
        '2m',
        '--rds-max-route-name-bytes=512',
        '--rds-max-route-names-per-stream=20',
        '--rds-max-route-name-bytes-per-connection=1MiB',
      ],
      {
        AERAKI_TRUST_DOMAIN: 'example.org',
        AERAKI_RDS_MAX_CONNECTIONS_PER_IDENTITY: '50',
        AERAKI_RDS_MAX_ROUTE_NAME_BYTES_PER_IDENTITY: '16MiB',
        AERAKI_RDS_MAX_IN_FLIGHT_BYTES_PER_IDENTITY: '8MiB',
      },
    );
    assert.deepEqual(rdsPeers(c.rds, c.mesh), {
      trustDomain: 'example.org',
      trustDomainAliases: ['old.mesh', 'other.mesh'],
      allowedNamespaces: ['shop', 'pay'],
    });
    assert.equal(c.admin.debugEndpoints, true);
    assert.deepEqual(c.admin.debugAddress, { host: '127.0.0.1', port: 9999 });
    assert.equal(c.rds.maxReceiveBytes, 512 * 1024);
    assert.equal(c.rds.idleStreamTimeoutMs, 120_000);
    assert.equal(c.rds.maxConnectionsPerIdentity, 50);
    assert.deepEqual(
      [c.rds.maxRouteNameBytes, c.rds.maxRouteNamesPerStream, c.rds.maxRouteNameBytesPerConnection],
      [512, 20, 1 << 20],
    );
    assert.equal(c.rds.maxRouteNameBytesPerIdentity, 16 << 20);
    assert.equal(c.rds.maxInFlightBytesPerIdentity, 8 << 20);
    assert.deepEqual(configOf([...TLS, '--debug-address', '0.0.0.0:9999']).admin.debugAddress, {
      host: '0.0.0.0',
      port: 9999,
    });
  });

  it('refuses bad values naming the option or variable', () => {
    assert.throws(
      () => configOf(TLS, { AERAKI_RDS_ALLOWED_NAMESPACES: 'shop,Bad_NS' }),
      (e: Error) => {
        assert.ok(e instanceof ConfigError);
        assert.match(e.message, /AERAKI_RDS_ALLOWED_NAMESPACES: "Bad_NS" is not a valid namespace/);
        return true;
      },
    );
    assert.throws(
      () => configOf(TLS, { AERAKI_TRUST_DOMAIN_ALIASES: 'ok.mesh,not a domain' }),
      /not a valid DNS domain/,
    );
    assert.throws(() => configOf([...TLS, '--rds-max-receive-size', '4MB']), /expected a size such as/);
  });

  it('handshake slots: per listener and per source address, from flags or environment', () => {
    assert.deepEqual(configOf(TLS).handshake, {
      timeoutMs: 10_000,
      maxPending: 1024,
      maxPendingPerSource: 64,
    });
    assert.equal(
      configOf([...TLS, '--tls-max-pending-handshakes-per-source', '8']).handshake.maxPendingPerSource,
      8,
    );
    const fromEnv = configOf(TLS, { AERAKI_TLS_MAX_PENDING_HANDSHAKES_PER_SOURCE: '0' });
    assert.equal(fromEnv.handshake.maxPendingPerSource, 0);
    assert.throws(
      () => configOf([...TLS, '--tls-max-pending-handshakes-per-source', 'many']),
      /--tls-max-pending-handshakes-per-source/,
    );
  });
});
