/**
 * The kinds the Redis plugin reads: redis.aeraki.io/v1alpha1 RedisService (client side) and RedisDestination (the
 * upstream cluster), read strictly (parse.ts); both may take auth from a Secret of their namespace (D12).
 */
import { kindSpec, type KindSpec } from '../../model/kinds.ts';
import type { SecretRef } from '../../model/secret-refs.ts';
import { passwordKeyOf, secretProblems, usernameKeyOf } from './auth.ts';
import { describeRedisDestination, describeRedisService } from './describe.ts';
import { readRedisDestinationSpec, readRedisServiceSpec } from './parse.ts';
import type { SecretAuth } from './types.ts';

const REDIS_GROUP = 'redis.aeraki.io';

/** The Secret `auth` names, at `path` (the auth field): its password and username keys are read. */
function secretRef(auth: SecretAuth | undefined, path: string): SecretRef[] {
  if (!auth) return [];
  return [
    {
      name: auth.name,
      path: `${path}.secret.name`,
      usedKeys: (data) => [passwordKeyOf(auth, data), usernameKeyOf(auth)],
      problems: (data, undecodable) => secretProblems(auth, data, undecodable, path),
    },
  ];
}

/** Credentials as written (`plain`): never shown in /debug/*. */
const SERVICE_SECRET_FIELDS = ['spec.settings.auth.plain.password', 'spec.settings.auth.plain.username'];
const DESTINATION_SECRET_FIELDS = [
  'spec.trafficPolicy.connectionPool.redis.auth.plain.password',
  'spec.trafficPolicy.connectionPool.redis.auth.plain.username',
];

/**
 * The redis_proxy fields the generator writes credentials into (proxy.ts, cluster.ts), with the plural and
 * username forms of Envoy's RedisProxy and RedisProtocolOptions (envoyproxy/envoy
 * api/envoy/extensions/filters/network/redis_proxy/v3/redis_proxy.proto).
 */
export const REDIS_SECRET_KEYS: readonly string[] = [
  'authPassword',
  'authUsername',
  'downstreamAuthPassword',
  'downstreamAuthPasswords',
  'downstreamAuthUsername',
];

export const REDIS_SERVICE_KIND = kindSpec({
  kind: 'RedisService',
  group: REDIS_GROUP,
  version: 'v1alpha1',
  plural: 'redisservices',
  namespaced: true,
  readSpec: (f, spec) => readRedisServiceSpec(f, spec),
  secretRefs: (o) => secretRef(o.spec.settings?.auth?.secret, 'spec.settings.auth'),
  hostsOf: (o) => o.spec.host,
  secretFields: SERVICE_SECRET_FIELDS,
  describe: describeRedisService,
});

export const REDIS_DESTINATION_KIND = kindSpec({
  kind: 'RedisDestination',
  group: REDIS_GROUP,
  version: 'v1alpha1',
  plural: 'redisdestinations',
  namespaced: true,
  readSpec: (f, spec) => readRedisDestinationSpec(f, spec),
  secretRefs: (o) =>
    secretRef(
      o.spec.trafficPolicy?.connectionPool?.redis?.auth?.secret,
      'spec.trafficPolicy.connectionPool.redis.auth',
    ),
  hostsOf: (o) => (o.spec.host === '' ? [] : [o.spec.host]),
  secretFields: DESTINATION_SECRET_FIELDS,
  describe: describeRedisDestination,
});

export const REDIS_KINDS: readonly KindSpec[] = [REDIS_SERVICE_KIND, REDIS_DESTINATION_KIND];
