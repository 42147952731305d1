/** Names and types of Envoy's redis_proxy network filter. */
export const REDIS_PROXY_FILTER = 'envoy.filters.network.redis_proxy';
export const REDIS_PROXY_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.redis_proxy.v3.RedisProxy';
