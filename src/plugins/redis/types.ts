/**
 * Typed shapes of the redis.aeraki.io/v1alpha1 kinds (api: redis/v1alpha1/redisservice.proto,
 * redisdestination.proto). Durations are proto3 JSON strings (`"60s"`, `"0.250s"`), already validated; enums are
 * their names. Parsed by parse.ts; added to the model's object union (PluginObjects) here.
 */
import type { KubeObject } from '../../model/objects.ts';

export const READ_POLICIES = ['MASTER', 'PREFER_MASTER', 'REPLICA', 'PREFER_REPLICA', 'ANY'] as const;
export type ReadPolicy = (typeof READ_POLICIES)[number];
export const FAULT_TYPES = ['DELAY', 'ERROR'] as const;
export type FaultType = (typeof FAULT_TYPES)[number];
export const REDIS_MODES = ['PROXY', 'CLUSTER'] as const;
export type RedisMode = (typeof REDIS_MODES)[number];

/** Auth from a Secret of the object's namespace: key names default as the README's D12 says. */
export interface SecretAuth {
  readonly name: string;
  readonly passwordField?: string;
  readonly usernameField?: string;
}

/** Exactly one of `secret` and `plain` (both is an input error). */
export interface RedisAuth {
  readonly secret?: SecretAuth;
  readonly plain?: { readonly password: string; readonly username: string };
}

export interface RedisSettings {
  readonly caseInsensitive?: boolean;
  readonly opTimeout?: string;
  readonly enableCommandStats?: boolean;
  readonly maxBufferSizeBeforeFlush?: number;
  readonly bufferFlushTimeout?: string;
  readonly maxUpstreamUnknownConnections?: number;
  readonly enableHashtagging?: boolean;
  readonly enableRedirection?: boolean;
  readonly readPolicy?: ReadPolicy;
  readonly auth?: RedisAuth;
}

/** A route or mirror destination; `host` is required and not empty (D13), `port` 0 means "infer". */
export interface RedisRouteDestination {
  readonly host: string;
  readonly port: number;
}

export interface RedisMirror {
  readonly route: RedisRouteDestination;
  /** Percent; undefined means every request (D13). */
  readonly percentage?: number;
  readonly excludeReadCommands: boolean;
}

export interface RedisRoute {
  /** undefined: the catch-all route. */
  readonly match?: { readonly prefix: string; readonly removePrefix: boolean };
  readonly route: RedisRouteDestination;
  readonly mirror: readonly RedisMirror[];
}

export interface RedisFault {
  readonly type: FaultType;
  /** Percent; required (D13). */
  readonly percentage: number;
  readonly delay?: string;
  readonly commands: readonly string[];
}

export interface RedisServiceSpec {
  /** Compared exactly (no FQDN normalisation) with ServiceEntry hosts. */
  readonly host: readonly string[];
  readonly settings?: RedisSettings;
  readonly redis: readonly RedisRoute[];
  readonly faults: readonly RedisFault[];
}

export interface TcpKeepalive {
  readonly probes?: number;
  readonly time?: string;
  readonly interval?: string;
}

/** A `discoveryEndpoints` entry, already split and checked (port undefined: the listener port). */
export interface RedisEndpoint {
  readonly address: string;
  readonly port?: number;
}

export interface RedisConnectionPool {
  readonly tcp?: {
    readonly maxConnections?: number;
    readonly connectTimeout?: string;
    readonly tcpKeepalive?: TcpKeepalive;
  };
  readonly redis?: {
    readonly mode: RedisMode;
    readonly auth?: RedisAuth;
    readonly discoveryEndpoints: readonly RedisEndpoint[];
  };
}

export interface RedisDestinationSpec {
  readonly host: string;
  readonly trafficPolicy?: { readonly connectionPool?: RedisConnectionPool };
}

export type RedisService = KubeObject<'RedisService', RedisServiceSpec>;
export type RedisDestination = KubeObject<'RedisDestination', RedisDestinationSpec>;

declare module '../../model/objects.ts' {
  interface PluginObjects {
    RedisService: RedisService;
    RedisDestination: RedisDestination;
  }
}
