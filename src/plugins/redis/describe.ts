/**
 * RedisService and RedisDestination as the debug page shows them (model/settings.ts): routes with their mirrors,
 * faults, settings, the upstream's mode and connection pool, and where auth comes from. A password or username
 * is never shown: auth from a Secret names the Secret and its keys, auth written in the object says only that.
 */
import { line, type ObjectSettings, type SettingLine } from '../../model/settings.ts';
import type {
  RedisAuth,
  RedisDestination,
  RedisRoute,
  RedisRouteDestination,
  RedisService,
} from './types.ts';

const target = (d: RedisRouteDestination): string => (d.port > 0 ? `${d.host}:${d.port}` : d.host);

function routeLines(r: RedisRoute): SettingLine[] {
  const match = r.match
    ? `prefix "${r.match.prefix}"${r.match.removePrefix ? ' (removed)' : ''}`
    : 'every other key';
  return [
    { label: 'route', value: `${match} → ${target(r.route)}` },
    ...r.mirror.map((m) => ({
      label: 'mirror',
      value:
        `${m.percentage ?? 100}% of ${match} to ${target(m.route)}` +
        (m.excludeReadCommands ? ' (writes only)' : ''),
    })),
  ];
}

/** Where auth comes from, never its value. */
export function authText(auth: RedisAuth | undefined): string | undefined {
  if (auth?.secret) {
    const { name, passwordField, usernameField } = auth.secret;
    const keys = `password key ${passwordField ?? 'password (else token)'}, username key ${usernameField ?? 'username'}`;
    return `from Secret ${name} (${keys})`;
  }
  if (auth?.plain) return 'written in the object (not shown)';
  return undefined;
}

export function describeRedisService(o: RedisService): ObjectSettings {
  const s = o.spec.settings;
  const settings = s
    ? Object.entries(s)
        .filter(([k, v]) => k !== 'auth' && v !== undefined)
        .map(([k, v]) => `${k} ${String(v)}`)
        .join(', ')
    : '';
  return {
    appliesTo: { hosts: o.spec.host },
    lines: [
      ...o.spec.redis.flatMap(routeLines),
      ...o.spec.faults.map((f) => ({
        label: 'fault',
        value:
          `${f.type} ${f.percentage}%${f.delay ? ` ${f.delay}` : ''}` +
          (f.commands.length > 0 ? ` on ${f.commands.join(', ')}` : ''),
      })),
      ...line('settings', settings),
      ...line('auth', authText(s?.auth)),
    ],
  };
}

export function describeRedisDestination(o: RedisDestination): ObjectSettings {
  const pool = o.spec.trafficPolicy?.connectionPool;
  const tcp = pool?.tcp;
  const connections = [
    tcp?.maxConnections !== undefined ? `max ${tcp.maxConnections}` : '',
    tcp?.connectTimeout ? `connect timeout ${tcp.connectTimeout}` : '',
  ]
    .filter((t) => t !== '')
    .join(', ');
  const endpoints = (pool?.redis?.discoveryEndpoints ?? []).map((e) =>
    e.port === undefined ? e.address : `${e.address}:${e.port}`,
  );
  return {
    appliesTo: { hosts: o.spec.host === '' ? [] : [o.spec.host] },
    lines: [
      ...line('mode', pool?.redis?.mode),
      ...line('discovery', endpoints.join(', ')),
      ...line('connections', connections),
      ...line('auth', authText(pool?.redis?.auth)),
    ],
  };
}
