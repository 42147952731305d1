import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import type { Secret } from '../../../src/model/objects.ts';
import type { RedisDestination, RedisService } from '../../../src/plugins/redis/types.ts';
import { formatIssue } from '../../../src/model/result.ts';
import { PARSE_OPTIONS } from '../../support/kinds.ts';

function parse(yaml: string) {
  const r = parseConfigObject(parseYaml(yaml), PARSE_OPTIONS);
  assert.ok(r, 'recognised');
  return r;
}

/** The formatted issues of an object that must be rejected. */
function errors(yaml: string): string[] {
  const r = parse(yaml);
  assert.equal(r.ok, false, 'rejected');
  return r.issues.map(formatIssue);
}

const RS = `
apiVersion: redis.aeraki.io/v1alpha1
kind: RedisService
metadata: {name: rs, namespace: cache}
spec:
  host: [a.cache.svc.cluster.local]
`;
const RD = `
apiVersion: redis.aeraki.io/v1alpha1
kind: RedisDestination
metadata: {name: rd, namespace: cache}
spec:
  host: a.cache.svc.cluster.local
`;

describe('parseConfigObject: RedisService', () => {
  it('reads settings, routes, mirrors and faults (durations in proto3 JSON form)', () => {
    const r = parse(`${RS}
  settings:
    opTimeout: 1m30s
    readPolicy: PREFER_REPLICA
    maxUpstreamUnknownConnections: 0
    auth: {secret: {name: s, usernameField: u}}
  redis:
  - match: {key: {prefix: "p:", removePrefix: true}}
    route: {host: b}
    mirror:
    - route: {host: c, port: 7000}
      excludeReadCommands: true
  - route: {host: d, port: 6379}
  faults:
  - {type: ERROR, percentage: {value: 12.5}, commands: [GET]}
  - {percentage: {value: 1}, delay: 250ms}
`);
    assert.ok(r.ok, JSON.stringify(r.issues));
    const spec = (r.value as RedisService).spec;
    assert.deepEqual(spec.settings, {
      opTimeout: '90s',
      readPolicy: 'PREFER_REPLICA',
      maxUpstreamUnknownConnections: 0,
      auth: { secret: { name: 's', usernameField: 'u' } },
    });
    assert.deepEqual(spec.redis, [
      {
        match: { prefix: 'p:', removePrefix: true },
        route: { host: 'b', port: 0 },
        mirror: [{ route: { host: 'c', port: 7000 }, excludeReadCommands: true }],
      },
      { route: { host: 'd', port: 6379 }, mirror: [] },
    ]);
    assert.deepEqual(spec.faults, [
      { type: 'ERROR', percentage: 12.5, commands: ['GET'] },
      { type: 'DELAY', percentage: 1, delay: '0.250s', commands: [] },
    ]);
  });

  it('rejects unknown fields at any depth, naming the object and the path', () => {
    assert.deepEqual(
      errors(`
apiVersion: redis.aeraki.io/v1alpha1
kind: RedisService
metadata: {name: rs, namespace: cache}
spec:
  hosts: [a]
  host: [a]
  settings: {auth: {plain: {password: x, token: y}}}
  redis:
  - route: {host: b, weight: 3}
    mirror: [{route: {host: c}, fraction: 1}]
`),
      [
        'RedisService cache/rs: spec.hosts: unknown field; did you mean host?',
        'RedisService cache/rs: spec.settings.auth.plain.token: unknown field',
        'RedisService cache/rs: spec.redis[0].route.weight: unknown field',
        'RedisService cache/rs: spec.redis[0].mirror[0].fraction: unknown field',
      ],
    );
  });

  it('rejects wrong types, unknown enum names, Go-invalid durations and secret with plain', () => {
    assert.deepEqual(
      errors(`${RS}
  settings:
    enableHashtagging: "yes"
    readPolicy: NEAREST
    opTimeout: 5 seconds
    auth: {secret: {name: s}, plain: {password: p}}
  faults:
  - {type: DROP, percentage: {value: 5}}
`),
      [
        'RedisService cache/rs: spec.settings.opTimeout: invalid duration "5 seconds" (expected e.g. "60s", "100ms", "1.5s")',
        'RedisService cache/rs: spec.settings.enableHashtagging: expected a boolean, got string "yes"',
        'RedisService cache/rs: spec.settings.readPolicy: unknown value "NEAREST" (expected one of MASTER, PREFER_MASTER, REPLICA, PREFER_REPLICA, ANY)',
        'RedisService cache/rs: spec.settings.auth: only one of secret and plain may be set',
        'RedisService cache/rs: spec.faults[0].type: unknown value "DROP" (expected one of DELAY, ERROR)',
      ],
    );
  });

  it('D13: a fault without percentage and a route or mirror without host are errors; host is required', () => {
    assert.deepEqual(
      errors(`
apiVersion: redis.aeraki.io/v1alpha1
kind: RedisService
metadata: {name: rs, namespace: cache}
spec:
  redis:
  - route: {port: 6379}
  - match: {key: {prefix: x}}
  - route: {host: a}
    mirror: [{percentage: {value: 5}}]
  faults: [{type: ERROR}, {percentage: {value: 101}}]
`),
      [
        'RedisService cache/rs: spec.host: at least one host is required',
        'RedisService cache/rs: spec.redis[0].route.host: required field is missing',
        'RedisService cache/rs: spec.redis[1].route: required field is missing',
        'RedisService cache/rs: spec.redis[2].mirror[0].route: required field is missing',
        'RedisService cache/rs: spec.faults[0].percentage: required field is missing',
        'RedisService cache/rs: spec.faults[1].percentage.value: must be between 0 and 100, got 101',
      ],
    );
  });
});

describe('parseConfigObject: RedisDestination', () => {
  it('reads the connection pool: tcp, keepalive, mode, auth and discovery endpoints', () => {
    const r = parse(`${RD}
  trafficPolicy:
    connectionPool:
      tcp: {maxConnections: 8, connectTimeout: 2.5s, tcpKeepalive: {probes: 2, time: 1m}}
      redis:
        mode: CLUSTER
        auth: {plain: {password: p}}
        discoveryEndpoints: ["10.0.0.1:7000", "seed", "[fd00::1]:7001"]
`);
    assert.ok(r.ok, JSON.stringify(r.issues));
    assert.deepEqual((r.value as RedisDestination).spec.trafficPolicy, {
      connectionPool: {
        tcp: { maxConnections: 8, connectTimeout: '2.500s', tcpKeepalive: { probes: 2, time: '60s' } },
        redis: {
          mode: 'CLUSTER',
          auth: { plain: { password: 'p', username: '' } },
          discoveryEndpoints: [
            { address: '10.0.0.1', port: 7000 },
            { address: 'seed' },
            { address: 'fd00::1', port: 7001 },
          ],
        },
      },
    });
  });

  it('rejects bad endpoints, bad modes, unknown fields, a missing host', () => {
    assert.deepEqual(
      errors(`
apiVersion: redis.aeraki.io/v1alpha1
kind: RedisDestination
metadata: {name: rd, namespace: cache}
spec:
  trafficPolicy:
    connectionPool:
      tcp: {connectTimeout: fast, maxConnections: -1}
      http: {}
      redis:
        mode: SENTINEL
        discoveryEndpoints: ["a:0", "a:70000", "fd00::1", "a:b:1", 7]
`),
      [
        'RedisDestination cache/rd: spec.host: required field is missing',
        'RedisDestination cache/rd: spec.trafficPolicy.connectionPool.http: unknown field',
        'RedisDestination cache/rd: spec.trafficPolicy.connectionPool.tcp.maxConnections: expected an integer between 0 and 2147483647, got -1',
        'RedisDestination cache/rd: spec.trafficPolicy.connectionPool.tcp.connectTimeout: invalid duration "fast" (expected e.g. "60s", "100ms", "1.5s")',
        'RedisDestination cache/rd: spec.trafficPolicy.connectionPool.redis.mode: unknown value "SENTINEL" (expected one of PROXY, CLUSTER)',
        'RedisDestination cache/rd: spec.trafficPolicy.connectionPool.redis.discoveryEndpoints[0]: "a:0" is not host, host:port or [ipv6]:port with a port from 1 to 65535',
        'RedisDestination cache/rd: spec.trafficPolicy.connectionPool.redis.discoveryEndpoints[1]: "a:70000" is not host, host:port or [ipv6]:port with a port from 1 to 65535',
        'RedisDestination cache/rd: spec.trafficPolicy.connectionPool.redis.discoveryEndpoints[2]: "fd00::1" is not host, host:port or [ipv6]:port with a port from 1 to 65535',
        'RedisDestination cache/rd: spec.trafficPolicy.connectionPool.redis.discoveryEndpoints[3]: "a:b:1" is not host, host:port or [ipv6]:port with a port from 1 to 65535',
        'RedisDestination cache/rd: spec.trafficPolicy.connectionPool.redis.discoveryEndpoints[4]: expected a string, got number 7',
      ],
    );
  });
});

describe('parseConfigObject: Secret', () => {
  it('decodes data and merges stringData over it', () => {
    const r = parse(`
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: cache}
type: Opaque
data: {password: cHcK, username: dQ==}
stringData: {username: override}
`);
    assert.ok(r.ok, JSON.stringify(r.issues));
    assert.deepEqual((r.value as Secret).spec.data, { password: 'pw\n', username: 'override' });
  });

  it('rejects data that is not base64', () => {
    assert.deepEqual(
      errors(`
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: cache}
data: {password: "not base64!"}
`),
      ['Secret cache/s: data.password: not valid base64'],
    );
  });

  it('ignores other core v1 kinds and other Secret versions', () => {
    assert.equal(parseConfigObject({ apiVersion: 'v2', kind: 'Secret', metadata: { name: 's' } }), undefined);
    assert.equal(parseConfigObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 's' } }), undefined);
  });

  it('RedisService and RedisDestination are read only with the plugin list: the core alone does not know them', () => {
    for (const kind of ['RedisService', 'RedisDestination']) {
      const raw = {
        apiVersion: 'redis.aeraki.io/v1alpha1',
        kind,
        metadata: { name: 'r', namespace: 'cache' },
        spec: {},
      };
      assert.equal(parseConfigObject(raw), undefined, kind);
      assert.notEqual(parseConfigObject(raw, PARSE_OPTIONS), undefined, kind);
    }
  });
});
