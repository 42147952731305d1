import { CLIENT_CONFIG_TYPE_URL, DEBUG_TYPE_URL, LISTENER_TYPE_URL } from './protos.ts';
import { readClientConfig, type ClientConfigFields } from './wire.ts';

/** A proxy's listener (LDS) state as istiod reports it. */
export type ConfigStatus = 'UNKNOWN' | 'SYNCED' | 'NOT_SENT' | 'STALE' | 'ERROR';

/** One proxy of a syncz answer, reduced to what attribution needs. */
export interface ProxySync {
  readonly id: string;
  /** The proxy's namespace: metadata NAMESPACE (newer istiod), else the `<pod>.<ns>` part of the id. */
  readonly namespace: string;
  /**
   * istiod's node type (`sidecar`, `router`, `waypoint`, ...) when the answer gives it: `proxy_type` of
   * `/debug/syncz`, or the first part of a full node id (`<type>~<ip>~<pod>.<ns>~<domain>`); undefined otherwise
   * (the ClientConfig answer's id is `<pod>.<ns>`: proxy-status/waypoint.ts).
   */
  readonly type?: string;
  readonly listeners: ConfigStatus;
  /**
   * The last rejection's detail of the listeners (`resources[LDS].lastError` of the detailed form, or a
   * ClientConfig's `error_state.details`); undefined when none.
   */
  readonly listenerError: string | undefined;
}

/** A resource of the answer: an Any (protobufjs message field names). */
export interface AnyLike {
  readonly type_url?: string;
  readonly value?: Uint8Array;
}

const EMPTY = new Uint8Array();

export type DecodeResult =
  | { readonly ok: true; readonly proxies: readonly ProxySync[] }
  | { readonly ok: false; readonly reason: string };

/** envoy.service.status.v3.ConfigStatus by number. */
const STATUSES: readonly ConfigStatus[] = ['UNKNOWN', 'SYNCED', 'NOT_SENT', 'STALE', 'ERROR'];

function asStatus(n: number | undefined): ConfigStatus {
  return STATUSES[n ?? 0] ?? 'UNKNOWN';
}

/**
 * The namespace of a proxy id: istiod's own `<pod>.<ns>` (pilot/pkg/model/context.go ParseServiceNodeWithMetadata
 * `out.ID = parts[2]`, what statusgen.go and debug.go answer, istio/istio release-1.30 @b9a2bbd2) or a full node id
 * `sidecar~<ip>~<pod>.<ns>~<ns>.svc.<domain>`; '' when the id has another shape.
 */
export function namespaceOfProxyId(id: string): string {
  const parts = id.split('~');
  const podNs = (parts.length === 1 ? parts[0] : parts[2]) ?? '';
  const dot = podNs.indexOf('.');
  if (dot >= 0) return podNs.slice(dot + 1);
  const dns = parts[3] ?? '';
  const d = dns.indexOf('.');
  return d > 0 ? dns.slice(0, d) : '';
}

/** The node type of a full node id `<type>~<ip>~<id>~<domain>`; undefined for another shape. */
export function typeOfProxyId(id: string): string | undefined {
  const parts = id.split('~');
  return parts.length === 4 && parts[0] !== '' ? parts[0] : undefined;
}

/**
 * Decodes the resources of a syncz answer: current istiod (generic_xds_configs with config_status and
 * error_state) and older ones (node id only, the deprecated per-type xds_config with `status` and a
 * listener_config / route_config ... oneof). A resource of another type means this istiod does not know the
 * debug type (it answered with something else): not ok.
 */
export function decodeSyncz(resources: readonly AnyLike[]): DecodeResult {
  const out: ProxySync[] = [];
  for (const r of resources) {
    if (r.type_url !== CLIENT_CONFIG_TYPE_URL) {
      return { ok: false, reason: `answer holds ${r.type_url ?? 'an untyped resource'}, not ClientConfig` };
    }
    let c: ClientConfigFields;
    try {
      c = readClientConfig(r.value ?? EMPTY);
    } catch (err) {
      return { ok: false, reason: `undecodable ClientConfig: ${(err as Error).message}` };
    }
    const type = typeOfProxyId(c.id);
    out.push({
      id: c.id,
      namespace: c.namespace || namespaceOfProxyId(c.id),
      ...(type !== undefined ? { type } : {}),
      listeners: c.ldsStatus === undefined ? 'UNKNOWN' : asStatus(c.ldsStatus),
      listenerError: c.ldsError,
    });
  }
  return { ok: true, proxies: out };
}

/** One entry of istiod's `/debug/syncz` JSON (debug.go SyncStatus, ResourceStatus): the fields read here. */
interface SyncStatusJson {
  readonly proxy?: unknown;
  readonly proxy_type?: unknown;
  readonly listener_sent?: unknown;
  readonly listener_acked?: unknown;
  readonly resources?: Readonly<Record<string, { sent?: unknown; acked?: unknown; lastError?: unknown }>>;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The listener state of one `/debug/syncz` entry: a kept NACK message (`resources[LDS].lastError`, cleared by
 * istiod on the next ACK) is ERROR with that detail; else nothing sent is NOT_SENT, the last sent nonce acked is
 * SYNCED, and anything else STALE (sent, not yet acknowledged: never a rejection).
 */
function fromSyncStatus(e: SyncStatusJson): ProxySync {
  const id = str(e.proxy);
  const r = e.resources?.[LISTENER_TYPE_URL];
  const sent = r ? str(r.sent) : str(e.listener_sent);
  const acked = r ? str(r.acked) : str(e.listener_acked);
  const error = str(r?.lastError) || undefined;
  const listeners: ConfigStatus = error ? 'ERROR' : !sent ? 'NOT_SENT' : sent === acked ? 'SYNCED' : 'STALE';
  const type = str(e.proxy_type) || typeOfProxyId(id);
  return {
    id,
    namespace: namespaceOfProxyId(id),
    ...(type !== undefined ? { type } : {}),
    listeners,
    listenerError: error,
  };
}

/**
 * Decodes the answer to `istio.io/debug` with resource name `syncz`: one Any of type_url `istio.io/debug` whose
 * bytes are the JSON array of istiod's HTTP `/debug/syncz` (debuggen.go DebugGen). Anything else (another type,
 * bytes that are no JSON array, as istiod's "404 page not found" when its debug handlers are off) is not ok.
 */
export function decodeDebugSyncz(resources: readonly AnyLike[]): DecodeResult {
  if (resources.length !== 1 || resources[0]?.type_url !== DEBUG_TYPE_URL) {
    const got = resources.map((r) => r.type_url ?? 'untyped').join(', ') || 'nothing';
    return { ok: false, reason: `answer holds ${got}, not one ${DEBUG_TYPE_URL} resource` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(resources[0].value ?? EMPTY).toString('utf8'));
  } catch {
    const head = Buffer.from(resources[0].value ?? EMPTY)
      .subarray(0, 60)
      .toString('utf8')
      .trim();
    return { ok: false, reason: `not the syncz JSON: ${JSON.stringify(head)}` };
  }
  if (!Array.isArray(parsed)) return { ok: false, reason: 'not the syncz JSON: no array' };
  const out: ProxySync[] = [];
  for (const e of parsed as unknown[]) {
    if (e && typeof e === 'object') out.push(fromSyncStatus(e));
  }
  return { ok: true, proxies: out };
}
