// Raw objects for the last-known-good suites: a MetaProtocol service (MetaRouter with a rate limit, a
// DestinationRule) and a Dubbo service (a VirtualService), each with a valid and an invalid version.
import type { ConfigStore } from '../../src/controller/store.ts';
import { parseRawObjects } from '../../src/model/parse/objects.ts';
import { configKinds } from '../../src/model/objects.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';
import { PARSE_OPTIONS } from './kinds.ts';

/** Every kind read: the core's and the plugins'. */
const CONFIG_KINDS = configKinds(createPluginKinds());

export type Raw = Record<string, unknown>;

export const ROOT = 'istio-system';
export const META_HOST = 'svc.shop.svc.cluster.local';
export const DUBBO_HOST = 'dubbo.shop.svc.cluster.local';
export const META_ROUTE = `${META_HOST}_20880`;

const md = (name: string) => ({ namespace: 'shop', name, creationTimestamp: '2024-01-01T00:00:00Z' });

export const metaEntry: Raw = {
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: md('svc'),
  spec: {
    hosts: [META_HOST],
    addresses: ['240.240.0.1'],
    ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
    resolution: 'STATIC',
  },
};

export const dubboEntry: Raw = {
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: md('dubbo'),
  spec: {
    hosts: [DUBBO_HOST],
    addresses: ['240.240.0.2'],
    ports: [{ number: 20881, name: 'tcp-dubbo', protocol: 'TCP' }],
    resolution: 'STATIC',
  },
};

/** A MetaRouter routing to subset v1 with a local rate limit; invalid without fillInterval. */
export function metaRouterRaw(valid: boolean): Raw {
  const tokenBucket: Raw = { maxTokens: 10, tokensPerFill: 10 };
  if (valid) tokenBucket['fillInterval'] = '60s';
  return {
    apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
    kind: 'MetaRouter',
    metadata: md('mr'),
    spec: {
      hosts: [META_HOST],
      routes: [{ name: 'v1', route: [{ destination: { host: META_HOST, subset: 'v1' } }] }],
      localRateLimit: { tokenBucket },
    },
  };
}

/** A VirtualService sending Dubbo traffic to subset v1; invalid with a non-list `http`. */
export function virtualServiceRaw(valid: boolean): Raw {
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'VirtualService',
    metadata: md('vs'),
    spec: {
      hosts: [DUBBO_HOST],
      http: valid ? [{ route: [{ destination: { host: DUBBO_HOST, subset: 'v1' } }] }] : 'oops',
    },
  };
}

const HASH = { loadBalancer: { consistentHash: { httpHeaderName: 'x-user' } } };

/** A DestinationRule hashing subset v1 on a header; invalid with that subset's name missing. */
export function destinationRuleRaw(valid: boolean): Raw {
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'DestinationRule',
    metadata: md('dr'),
    spec: {
      host: 'svc',
      subsets: [{ ...(valid ? { name: 'v1' } : {}), labels: { version: 'v1' }, trafficPolicy: HASH }],
    },
  };
}

/** Every object, each valid or not as asked. */
export function world(valid: { mr: boolean; vs: boolean; dr: boolean }): Raw[] {
  return [
    metaEntry,
    dubboEntry,
    metaRouterRaw(valid.mr),
    virtualServiceRaw(valid.vs),
    destinationRuleRaw(valid.dr),
  ];
}

/** Replaces the store's content with `raws`, as the directory and MCP sources do (replaceKind per kind). */
export function fill(store: ConfigStore, raws: readonly Raw[]): void {
  const parsed = parseRawObjects(raws, ROOT, [], PARSE_OPTIONS);
  for (const kind of CONFIG_KINDS) {
    store.replaceKind(
      kind,
      parsed.objects.filter((o) => o.kind === kind),
      parsed.rejected.filter((r) => r.ref.kind === kind),
    );
  }
}

/** The source key of the gateway's generated objects. */
export const GATEWAY_SOURCE = 'Gateway/istio-system/ingress';

/** A Gateway with a MetaProtocol server on the port of the MetaProtocol service. */
export const gatewayRaw: Raw = {
  apiVersion: 'networking.istio.io/v1',
  kind: 'Gateway',
  metadata: { namespace: ROOT, name: 'ingress', creationTimestamp: '2024-01-01T00:00:00Z' },
  spec: {
    selector: { istio: 'ingressgateway' },
    servers: [{ hosts: ['*'], port: { number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' } }],
  },
};

/**
 * The MetaRouter of metaRouterRaw bound to the Gateway, routing to its port; invalid without fillInterval. In
 * namespace `shop` unless `namespace` says otherwise (the Gateway's own namespace is ROOT).
 */
export function gatewayRouterRaw(valid: boolean, namespace = 'shop'): Raw {
  const mr = metaRouterRaw(valid);
  const spec = mr['spec'] as Raw;
  return {
    ...mr,
    metadata: { ...(mr['metadata'] as Raw), namespace },
    spec: {
      ...spec,
      gateways: [`${ROOT}/ingress`],
      routes: [{ route: [{ destination: { host: META_HOST, port: { number: 20880 } } }] }],
    },
  };
}
