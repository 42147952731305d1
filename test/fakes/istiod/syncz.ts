// istiod's `istio.io/debug/syncz` as the fake answers it (docs/wire-formats.md "istio.io/debug/syncz"): the
// current shape (generic_xds_configs for LDS/RDS/EDS/CDS/ECDS, node metadata CLUSTER_ID/NAMESPACE/ISTIO_VERSION,
// ERROR with error_state.details for a rejected push) and the older one (node id only, the deprecated per-type
// xds_config, no ERROR: a rejected push is STALE); and the other form of the question, type `istio.io/debug` with
// resource name `syncz` (debuggen.go DebugGen serving debug.go Syncz's JSON, with each type's kept NACK message).
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
  /** istiod's node type (`proxy_type` of the /debug/syncz JSON; default `sidecar`). */
  readonly type?: string;
}

/**
 * How the fake answers syncz: `current` (istiod's status generator, statusgen.go debugSyncz: every proxy to any
 * caller on either port, the current shape), `restricted` (the rule of istiod's `istio.io/debug` generator,
 * debuggen.go, should a release apply it to syncz: TLS and an authenticated caller only, and a caller outside the
 * root namespace sees its namespace's proxies), `older` (any caller, the old shape), `refuse` (ends the stream
 * with PERMISSION_DENIED, as istiod does when a debug generator fails), `unknown` (an istiod without a generator
 * for the type: no answer at all). A stream whose node names `GENERATOR: api` gets an empty list in every mode
 * but `unknown` (istiod's MCP generator answers it). `newest`: the status generator as the newest istiod sources
 * have it (statusgen.go debugSyncStatus knows no ERROR: a rejected push is STALE, without detail), to anyone.
 * docs/wire-formats.md has the sources.
 */
export type SynczMode = 'current' | 'restricted' | 'older' | 'refuse' | 'unknown' | 'newest';

/**
 * How the fake answers `istio.io/debug` (resource name `syncz`): `newest` (debug.go SyncStatus with `resources`
 * per type and its `lastError`, the NACK's message), `older` (SyncStatus without `resources`: nonces only, a
 * rejected push reads as stale), `absent` (no generator for the type: no answer). Both answering forms apply
 * DebugGen's rule: TLS with a verified identity, and syncz only to an identity of the root namespace; anything
 * else ends the stream (a generator error: gRPC UNKNOWN).
 */
export type DebugFormMode = 'newest' | 'older' | 'absent';

export interface FakeSyncz {
  mode: SynczMode;
  /** How `istio.io/debug` + `syncz` is answered (default `newest`). */
  debug: DebugFormMode;
  proxies: FakeProxy[];
  rootNamespace: string;
  /** Bearer tokens istiod accepts and the namespace of the identity each one carries. */
  readonly tokens: Map<string, string>;
}

export function newFakeSyncz(): FakeSyncz {
  return { mode: 'current', debug: 'newest', proxies: [], rootNamespace: 'istio-system', tokens: new Map() };
}

/**
 * istiod's own proxy id, `<pod>.<ns>` (pilot/pkg/model/context.go ParseServiceNodeWithMetadata `out.ID = parts[2]`,
 * istio/istio release-1.30 @b9a2bbd2): what statusgen.go and debug.go answer, without the node type.
 */
export function podProxyId(pod: string, namespace: string): string {
  return `${pod}.${namespace}`;
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
export function encodeSyncz(
  proxies: readonly FakeProxy[],
  shape: 'current' | 'newest' | 'older',
): AnyBytes[] {
  const { ClientConfig } = loadSynczProtos();
  return proxies.map((p) => {
    const obj =
      shape !== 'older'
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
              configStatus: k === 'lds' ? ldsStatus(p, shape) : 'SYNCED',
              ...(k === 'lds' && p.ldsError && shape === 'current'
                ? { errorState: { details: p.ldsError } }
                : {}),
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

/** `newest`: statusgen.go debugSyncStatus maps nonces only (NOT_SENT, SYNCED, else STALE): never ERROR. */
function ldsStatus(p: FakeProxy, shape: 'current' | 'newest'): FakeConfigStatus {
  return shape === 'newest' && p.lds === 'ERROR' ? 'STALE' : p.lds;
}

/** Nonces of a type as istiod keeps them: none sent, the sent one acked, or a newer one sent and not acked. */
function nonces(status: FakeConfigStatus): { sent: string; acked: string } | undefined {
  if (status === 'NOT_SENT') return undefined;
  return status === 'SYNCED' ? { sent: 'n-1', acked: 'n-1' } : { sent: 'n-2', acked: 'n-1' };
}

const SENT_TIME = '2026-12-05T00:00:00Z';

/**
 * The JSON of istiod's HTTP `/debug/syncz` (debug.go Syncz: SyncStatus with its json tags; `newest` adds
 * `resources`, keyed by type URL, of ResourceStatus `sent`/`acked`/`sentTime`/`lastError`), as DebugGen wraps it:
 * one Any of type_url `istio.io/debug` holding the bytes.
 */
export function encodeDebugSyncz(proxies: readonly FakeProxy[], shape: 'newest' | 'older'): AnyBytes[] {
  const list = proxies.map((p) => {
    const lds = nonces(p.lds);
    const other = nonces('SYNCED')!;
    const entry: Record<string, unknown> = {
      cluster_id: 'Kubernetes',
      proxy: p.id,
      ...(shape === 'newest' ? { proxy_type: p.type ?? 'sidecar' } : {}),
      istio_version: '1.28.0',
      cluster_sent: other.sent,
      cluster_acked: other.acked,
      ...(lds ? { listener_sent: lds.sent, listener_acked: lds.acked } : {}),
      route_sent: other.sent,
      route_acked: other.acked,
      endpoint_sent: other.sent,
      endpoint_acked: other.acked,
    };
    if (shape === 'newest') {
      const resources: Record<string, unknown> = {};
      for (const [k, typeUrl] of Object.entries(TYPES)) {
        const n = k === 'lds' ? lds : k === 'ecds' ? undefined : other;
        if (!n) continue;
        const lastError = k === 'lds' && p.lds === 'ERROR' ? p.ldsError : undefined;
        resources[typeUrl] = { ...n, sentTime: SENT_TIME, ...(lastError ? { lastError } : {}) };
      }
      entry['resources'] = resources;
    }
    return entry;
  });
  return [{ type_url: 'istio.io/debug', value: Buffer.from(JSON.stringify(list)) }];
}

/** The namespace of an authenticated caller's identity: a SPIFFE URI `spiffe://<td>/ns/<ns>/sa/<sa>`. */
export function namespaceOfSpiffe(uri: string | undefined): string | undefined {
  return uri ? /\/ns\/([^/]+)\/sa\//.exec(uri)?.[1] : undefined;
}
