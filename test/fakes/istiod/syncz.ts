// istiod's `istio.io/debug/syncz` as the fake answers it (docs/wire-formats.md "istio.io/debug/syncz"): the
// current shape (generic_xds_configs for LDS/RDS/EDS/CDS/ECDS, node metadata CLUSTER_ID/NAMESPACE/ISTIO_VERSION,
// ERROR with error_state.details for a rejected push) and the older one (node id only, the deprecated per-type
// xds_config, no ERROR: a rejected push is STALE).
import { loadSynczProtos } from '../../../src/proxy-status/protos.ts';
import type { AnyBytes } from './encode.ts';

export type FakeConfigStatus = 'SYNCED' | 'STALE' | 'NOT_SENT' | 'ERROR';

/** One connected proxy as istiod sees it. */
export interface FakeProxy {
  readonly id: string;
  readonly namespace: string;
  /** Listener (LDS) state; the other types are SYNCED. */
  readonly lds: FakeConfigStatus;
  /** The last rejection's detail (current istiod only; with lds ERROR). */
  readonly ldsError?: string;
}

/**
 * How the fake answers syncz: `current` (istiod's status generator, statusgen.go debugSyncz: every proxy to any
 * caller on either port, the current shape), `restricted` (the rule of istiod's `istio.io/debug` generator,
 * debuggen.go, should a release apply it to syncz: TLS and an authenticated caller only, and a caller outside the
 * root namespace sees its namespace's proxies), `older` (any caller, the old shape), `refuse` (ends the stream
 * with PERMISSION_DENIED, as istiod does when a debug generator fails), `unknown` (an istiod without a generator
 * for the type: no answer at all). A stream whose node names `GENERATOR: api` gets an empty list in every mode
 * but `unknown` (istiod's MCP generator answers it). docs/wire-formats.md has the sources.
 */
export type SynczMode = 'current' | 'restricted' | 'older' | 'refuse' | 'unknown';

export interface FakeSyncz {
  mode: SynczMode;
  proxies: FakeProxy[];
  rootNamespace: string;
  /** Bearer tokens istiod accepts and the namespace of the identity each one carries. */
  readonly tokens: Map<string, string>;
}

export function newFakeSyncz(): FakeSyncz {
  return { mode: 'current', proxies: [], rootNamespace: 'istio-system', tokens: new Map() };
}

/** `sidecar~<ip>~<pod>.<ns>~<ns>.svc.cluster.local` */
export function proxyId(pod: string, namespace: string, ip = '10.244.1.1'): string {
  return `sidecar~${ip}~${pod}.${namespace}~${namespace}.svc.cluster.local`;
}

const TYPES = {
  lds: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  rds: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
  eds: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
  cds: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  ecds: 'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig',
};

export const CLIENT_CONFIG = 'type.googleapis.com/envoy.service.status.v3.ClientConfig';

/** The answer's resources (each an Any of ClientConfig) for the given proxies. */
export function encodeSyncz(proxies: readonly FakeProxy[], shape: 'current' | 'older'): AnyBytes[] {
  const { ClientConfig } = loadSynczProtos();
  return proxies.map((p) => {
    const obj =
      shape === 'current'
        ? {
            node: {
              id: p.id,
              metadata: {
                fields: {
                  CLUSTER_ID: { stringValue: 'Kubernetes' },
                  NAMESPACE: { stringValue: p.namespace },
                  ISTIO_VERSION: { stringValue: '1.24.0' },
                },
              },
            },
            genericXdsConfigs: Object.entries(TYPES).map(([k, typeUrl]) => ({
              typeUrl,
              configStatus: k === 'lds' ? p.lds : 'SYNCED',
              ...(k === 'lds' && p.ldsError ? { errorState: { details: p.ldsError } } : {}),
            })),
          }
        : {
            node: { id: p.id },
            xdsConfig: [
              { status: p.lds === 'ERROR' ? 'STALE' : p.lds, listenerConfig: {} },
              { status: 'SYNCED', routeConfig: {} },
              { status: 'SYNCED', endpointConfig: {} },
              { status: 'SYNCED', clusterConfig: {} },
            ],
          };
    return { type_url: CLIENT_CONFIG, value: ClientConfig.encode(ClientConfig.fromObject(obj)).finish() };
  });
}

/** The namespace of an authenticated caller's identity: a SPIFFE URI `spiffe://<td>/ns/<ns>/sa/<sa>`. */
export function namespaceOfSpiffe(uri: string | undefined): string | undefined {
  return uri ? /\/ns\/([^/]+)\/sa\//.exec(uri)?.[1] : undefined;
}
