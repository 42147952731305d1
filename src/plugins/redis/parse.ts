/**
 * Specs of the redis.aeraki.io/v1alpha1 kinds, read strictly (fixtures README, "Peripheral generators: Input"):
 * unknown fields at any depth, wrong JSON types, unknown enum names, Go-invalid durations and `secret` with
 * `plain` in one auth are input errors; so are the inputs D13 lists (a fault without percentage, a route or mirror
 * without host) and a CLUSTER-mode discovery endpoint that is not `host`, `host:port` or `[ipv6]:port`.
 */
import { describe, type Fields, type Raw } from '../../model/parse/fields.ts';
import { readEnum, rejectUnknownFields, strictObject } from '../../model/parse/strict.ts';
import {
  FAULT_TYPES,
  READ_POLICIES,
  REDIS_MODES,
  type RedisAuth,
  type RedisConnectionPool,
  type RedisDestinationSpec,
  type RedisEndpoint,
  type RedisFault,
  type RedisMirror,
  type RedisRoute,
  type RedisRouteDestination,
  type RedisServiceSpec,
  type RedisSettings,
  type TcpKeepalive,
} from './types.ts';

/** Drops the keys whose value is undefined (objects of the model leave absent fields out). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === '' ? undefined : v;
}

function readAuth(f: Fields, parent: Raw, path: string): RedisAuth | undefined {
  const o = strictObject(f, parent, 'auth', path, ['secret', 'plain']);
  if (!o) return undefined;
  const s = strictObject(f, o, 'secret', `${path}.secret`, ['name', 'passwordField', 'usernameField']);
  const p = strictObject(f, o, 'plain', `${path}.plain`, ['password', 'username']);
  if (s && p) f.error(path, 'only one of secret and plain may be set');
  let secret: RedisAuth['secret'];
  if (s) {
    const name = f.requiredString(s, 'name', `${path}.secret.name`);
    if (name === '') f.error(`${path}.secret.name`, 'must not be empty');
    secret = defined({
      name: name ?? '',
      passwordField: nonEmpty(f.string(s, 'passwordField', `${path}.secret.passwordField`)),
      usernameField: nonEmpty(f.string(s, 'usernameField', `${path}.secret.usernameField`)),
    });
  }
  const plain = p
    ? {
        password: f.string(p, 'password', `${path}.plain.password`) ?? '',
        username: f.string(p, 'username', `${path}.plain.username`) ?? '',
      }
    : undefined;
  return defined({ secret, plain });
}

const SETTINGS_FIELDS = [
  'caseInsensitive',
  'opTimeout',
  'enableCommandStats',
  'maxBufferSizeBeforeFlush',
  'bufferFlushTimeout',
  'maxUpstreamUnknownConnections',
  'enableHashtagging',
  'enableRedirection',
  'readPolicy',
  'auth',
];

function readSettings(f: Fields, spec: Raw): RedisSettings | undefined {
  const p = 'spec.settings';
  const o = strictObject(f, spec, 'settings', p, SETTINGS_FIELDS);
  if (!o) return undefined;
  return defined({
    caseInsensitive: f.boolean(o, 'caseInsensitive', `${p}.caseInsensitive`),
    opTimeout: f.duration(o, 'opTimeout', `${p}.opTimeout`),
    enableCommandStats: f.boolean(o, 'enableCommandStats', `${p}.enableCommandStats`),
    maxBufferSizeBeforeFlush: f.uint32(o, 'maxBufferSizeBeforeFlush', `${p}.maxBufferSizeBeforeFlush`),
    bufferFlushTimeout: f.duration(o, 'bufferFlushTimeout', `${p}.bufferFlushTimeout`),
    maxUpstreamUnknownConnections: f.uint32(
      o,
      'maxUpstreamUnknownConnections',
      `${p}.maxUpstreamUnknownConnections`,
    ),
    enableHashtagging: f.boolean(o, 'enableHashtagging', `${p}.enableHashtagging`),
    enableRedirection: f.boolean(o, 'enableRedirection', `${p}.enableRedirection`),
    readPolicy: readEnum(f, o, 'readPolicy', `${p}.readPolicy`, READ_POLICIES),
    auth: readAuth(f, o, `${p}.auth`),
  });
}

/** `route: {host, port}`; D13: the route and its host are required. */
function readDestination(f: Fields, parent: Raw, path: string): RedisRouteDestination | undefined {
  const o = strictObject(f, parent, 'route', `${path}.route`, ['host', 'port']);
  if (!o) {
    if (parent['route'] === undefined || parent['route'] === null) {
      f.error(`${path}.route`, 'required field is missing');
    }
    return undefined;
  }
  const host = f.requiredString(o, 'host', `${path}.route.host`);
  if (host === '') f.error(`${path}.route.host`, 'must not be empty');
  const port = f.port(o, 'port', `${path}.route.port`) ?? 0;
  return host ? { host, port } : undefined;
}

/** `percentage: {value}` as a percent in [0, 100]; undefined when absent. */
function readPercentage(f: Fields, parent: Raw, path: string): number | undefined {
  const o = strictObject(f, parent, 'percentage', `${path}.percentage`, ['value']);
  if (!o) return undefined;
  const value = f.number(o, 'value', `${path}.percentage.value`) ?? 0;
  if (value < 0 || value > 100)
    f.error(`${path}.percentage.value`, `must be between 0 and 100, got ${value}`);
  return value;
}

function readMirror(f: Fields, o: Raw, path: string): RedisMirror | undefined {
  rejectUnknownFields(f, o, ['route', 'percentage', 'excludeReadCommands'], path);
  const route = readDestination(f, o, path);
  const percentage = readPercentage(f, o, path);
  const excludeReadCommands = f.boolean(o, 'excludeReadCommands', `${path}.excludeReadCommands`) ?? false;
  return route ? defined({ route, percentage, excludeReadCommands }) : undefined;
}

function readRoute(f: Fields, o: Raw, path: string): RedisRoute | undefined {
  rejectUnknownFields(f, o, ['match', 'route', 'mirror'], path);
  const m = strictObject(f, o, 'match', `${path}.match`, ['key']);
  const k = m ? strictObject(f, m, 'key', `${path}.match.key`, ['prefix', 'removePrefix']) : undefined;
  const match = k
    ? {
        prefix: f.string(k, 'prefix', `${path}.match.key.prefix`) ?? '',
        removePrefix: f.boolean(k, 'removePrefix', `${path}.match.key.removePrefix`) ?? false,
      }
    : undefined;
  const route = readDestination(f, o, path);
  const mirror = f.objectList(o, 'mirror', `${path}.mirror`, (x, p) => readMirror(f, x, p));
  return route ? defined({ match, route, mirror }) : undefined;
}

function readFault(f: Fields, o: Raw, path: string): RedisFault | undefined {
  rejectUnknownFields(f, o, ['type', 'percentage', 'delay', 'commands'], path);
  const type = readEnum(f, o, 'type', `${path}.type`, FAULT_TYPES) ?? 'DELAY';
  const percentage = readPercentage(f, o, path);
  if (percentage === undefined) f.error(`${path}.percentage`, 'required field is missing');
  const delay = f.duration(o, 'delay', `${path}.delay`);
  const commands = f.stringList(o, 'commands', `${path}.commands`);
  return percentage !== undefined ? defined({ type, percentage, delay, commands }) : undefined;
}

export function readRedisServiceSpec(f: Fields, spec: Raw): RedisServiceSpec {
  rejectUnknownFields(f, spec, ['host', 'settings', 'redis', 'faults'], 'spec');
  const host = f.stringList(spec, 'host', 'spec.host');
  if (host.length === 0) f.error('spec.host', 'at least one host is required');
  const settings = readSettings(f, spec);
  const redis = f.objectList(spec, 'redis', 'spec.redis', (o, p) => readRoute(f, o, p));
  const faults = f.objectList(spec, 'faults', 'spec.faults', (o, p) => readFault(f, o, p));
  return defined({ host, settings, redis, faults });
}

/** `host`, `host:port` or `[ipv6]:port`, port 1 to 65535. */
const ENDPOINT = /^(?:\[([0-9A-Fa-f:.]+)\]:(\d+)|([^\s:[\]]+)(?::(\d+))?)$/;

function readEndpoint(f: Fields, v: unknown, path: string): RedisEndpoint | undefined {
  if (typeof v !== 'string') {
    f.error(path, `expected a string, got ${describe(v)}`);
    return undefined;
  }
  const m = ENDPOINT.exec(v);
  const portText = m?.[2] ?? m?.[4];
  const port = portText === undefined ? undefined : Number(portText);
  if (!m || (port !== undefined && !(port >= 1 && port <= 65535))) {
    f.error(path, `"${v}" is not host, host:port or [ipv6]:port with a port from 1 to 65535`);
    return undefined;
  }
  return defined({ address: m[1] ?? m[3] ?? '', port });
}

function readKeepalive(f: Fields, tcp: Raw, path: string): TcpKeepalive | undefined {
  const o = strictObject(f, tcp, 'tcpKeepalive', path, ['probes', 'time', 'interval']);
  if (!o) return undefined;
  return defined({
    probes: f.uint32(o, 'probes', `${path}.probes`),
    time: f.duration(o, 'time', `${path}.time`),
    interval: f.duration(o, 'interval', `${path}.interval`),
  });
}

function readConnectionPool(f: Fields, parent: Raw, path: string): RedisConnectionPool | undefined {
  const o = strictObject(f, parent, 'connectionPool', path, ['tcp', 'redis']);
  if (!o) return undefined;
  const t = strictObject(f, o, 'tcp', `${path}.tcp`, ['maxConnections', 'connectTimeout', 'tcpKeepalive']);
  const tcp = t
    ? defined({
        maxConnections: f.integer(t, 'maxConnections', `${path}.tcp.maxConnections`, 0, 2147483647),
        connectTimeout: f.duration(t, 'connectTimeout', `${path}.tcp.connectTimeout`),
        tcpKeepalive: readKeepalive(f, t, `${path}.tcp.tcpKeepalive`),
      })
    : undefined;
  const r = strictObject(f, o, 'redis', `${path}.redis`, ['mode', 'auth', 'discoveryEndpoints']);
  const redis = r
    ? defined({
        mode: readEnum(f, r, 'mode', `${path}.redis.mode`, REDIS_MODES) ?? 'PROXY',
        auth: readAuth(f, r, `${path}.redis.auth`),
        discoveryEndpoints: f.list(r, 'discoveryEndpoints', `${path}.redis.discoveryEndpoints`, (v, p) =>
          readEndpoint(f, v, p),
        ),
      })
    : undefined;
  return defined({ tcp, redis });
}

export function readRedisDestinationSpec(f: Fields, spec: Raw): RedisDestinationSpec {
  rejectUnknownFields(f, spec, ['host', 'trafficPolicy'], 'spec');
  const host = f.requiredString(spec, 'host', 'spec.host') ?? '';
  if (spec['host'] === '') f.error('spec.host', 'must not be empty');
  const tp = strictObject(f, spec, 'trafficPolicy', 'spec.trafficPolicy', ['connectionPool']);
  const trafficPolicy = tp
    ? defined({ connectionPool: readConnectionPool(f, tp, 'spec.trafficPolicy.connectionPool') })
    : undefined;
  return defined({ host, trafficPolicy });
}
