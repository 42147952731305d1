// Typed objects for unit tests, with every required field defaulted. Prefer parseConfigObject on YAML where the
// parsing itself matters; these are for tests of generators and builders that start from the typed model.
import { ConfigStore } from '../../src/controller/store.ts';
import type {
  DubboAuthorizationPolicy,
  DubboAuthorizationPolicySpec,
  DubboOperation,
  DubboSource,
} from '../../src/plugins/dubbo/types.ts';
import type {
  ConfigObject,
  DestinationRule,
  DestinationRuleSpec,
  Gateway,
  GatewaySpec,
  MetaRouter,
  MetaRouterSpec,
  ObjectMeta,
  IstioServiceEntry,
  ServiceEntrySpec,
  VirtualService,
  VirtualServiceSpec,
} from '../../src/model/objects.ts';
import type { ConfigEvent } from '../../src/model/view.ts';

export function meta(namespace: string, name: string, extra: Partial<ObjectMeta> = {}): ObjectMeta {
  return {
    name,
    namespace,
    labels: {},
    annotations: {},
    creationTimestamp: '2026-01-01T00:00:00Z',
    resourceVersion: '1',
    ...extra,
  };
}

export function serviceEntry(
  ns: string,
  name: string,
  spec: Partial<ServiceEntrySpec>,
  m: Partial<ObjectMeta> = {},
): IstioServiceEntry {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'ServiceEntry',
    metadata: meta(ns, name, m),
    spec: { hosts: [], addresses: [], ports: [], ...spec },
  };
}

export function virtualService(
  ns: string,
  name: string,
  spec: Partial<VirtualServiceSpec>,
  m: Partial<ObjectMeta> = {},
): VirtualService {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'VirtualService',
    metadata: meta(ns, name, m),
    spec: { hosts: [], gateways: [], http: [], tcp: [], ...spec },
  };
}

export function destinationRule(
  ns: string,
  name: string,
  spec: Partial<DestinationRuleSpec>,
  m: Partial<ObjectMeta> = {},
): DestinationRule {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'DestinationRule',
    metadata: meta(ns, name, m),
    spec: { host: '', subsets: [], ...spec },
  };
}

export function gateway(
  ns: string,
  name: string,
  spec: Partial<GatewaySpec>,
  m: Partial<ObjectMeta> = {},
): Gateway {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'Gateway',
    metadata: meta(ns, name, m),
    spec: { servers: [], selector: {}, ...spec },
  };
}

export function metaRouter(
  ns: string,
  name: string,
  spec: Partial<MetaRouterSpec>,
  m: Partial<ObjectMeta> = {},
): MetaRouter {
  return {
    apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
    kind: 'MetaRouter',
    metadata: meta(ns, name, m),
    spec: { hosts: [], gateways: [], exportTo: [], routes: [], ...spec },
  };
}

export function dubboAuthorizationPolicy(
  ns: string,
  name: string,
  spec: Partial<DubboAuthorizationPolicySpec>,
  m: Partial<ObjectMeta> = {},
): DubboAuthorizationPolicy {
  return {
    apiVersion: 'dubbo.aeraki.io/v1alpha1',
    kind: 'DubboAuthorizationPolicy',
    metadata: meta(ns, name, m),
    spec: { action: 'ALLOW', rules: [], ...spec },
  };
}

/** A DubboSource with the given lists, the others empty. */
export function dubboSource(lists: Partial<DubboSource>): DubboSource {
  return { principals: [], notPrincipals: [], namespaces: [], notNamespaces: [], ...lists };
}

/** A DubboOperation with the given lists, the others empty. */
export function dubboOperation(lists: Partial<DubboOperation>): DubboOperation {
  return { interfaces: [], notInterfaces: [], methods: [], notMethods: [], ...lists };
}

/** An empty ConfigStore and the events it emits, in order. */
export function recordingStore(rootNamespace = 'istio-system'): {
  store: ConfigStore;
  events: ConfigEvent[];
} {
  const store = new ConfigStore({ rootNamespace });
  const events: ConfigEvent[] = [];
  store.subscribe((e) => events.push(e));
  return { store, events };
}

/** A ConfigStore holding `objects`: the real view (indexes, D6 precedence) for generators and builders. */
export function storeOf(objects: readonly ConfigObject[], rootNamespace = 'istio-system'): ConfigStore {
  const store = new ConfigStore({ rootNamespace });
  for (const o of objects) store.upsert(o);
  return store;
}
