/**
 * The metrics read from status providers at scrape time (see status-providers.ts): each collect() calls its
 * provider through `read`, which turns a throwing provider into "no value" for that metric only.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { compareStrings } from '../model/order.ts';
import { MCP_STATES, type StatusProviders } from './status-providers.ts';

export type ReadProvider = <T>(fn: (p: StatusProviders) => T | undefined) => T | undefined;

export function createStatusMetrics(registers: Registry[], read: ReadProvider) {
  /** A counter whose value is a cumulative number kept by a component. */
  const mirrored = (name: string, help: string, value: (p: StatusProviders) => number | undefined) => {
    const c: Counter = new Counter({
      name,
      help,
      registers,
      collect: () => {
        const v = read(value);
        c.reset();
        if (v !== undefined && Number.isFinite(v) && v >= 0) c.inc(v);
      },
    });
    return c;
  };
  const configObjects = new Gauge({
    name: 'aeraki_config_objects',
    help: 'Valid configuration objects held in the store, by kind.',
    labelNames: ['kind'],
    registers,
    collect: () => {
      const counts = read((p) => p.configObjects?.());
      if (counts === undefined) return;
      configObjects.reset();
      for (const kind of Object.keys(counts).sort()) configObjects.set({ kind }, counts[kind] ?? 0);
    },
  });
  const kindsUnavailable = new Gauge({
    name: 'aeraki_config_kind_unavailable',
    help: 'Kinds read from the Kubernetes API that are not read now: 1 per kind, by reason (not_installed: its CRD is not installed, read as empty; forbidden: RBAC denies list or watch, nothing is written).',
    labelNames: ['kind', 'reason'],
    registers,
    collect: () => {
      const kinds = read((p) => p.unavailableKinds?.());
      if (kinds === undefined) return;
      kindsUnavailable.reset();
      for (const k of kinds) kindsUnavailable.set({ kind: k.kind, reason: k.reason }, 1);
    },
  });
  const rejectedObjects = new Gauge({
    name: 'aeraki_config_rejected_objects',
    help: 'Configuration objects currently rejected as invalid, by kind.',
    labelNames: ['kind'],
    registers,
    collect: () => {
      const counts = read((p) => p.rejectedObjects?.());
      if (counts === undefined) return;
      rejectedObjects.reset();
      for (const kind of Object.keys(counts).sort()) rejectedObjects.set({ kind }, counts[kind] ?? 0);
    },
  });
  const configFileErrors = new Gauge({
    name: 'aeraki_config_file_errors',
    help: 'Config files (directory source) that cannot be read, decoded or parsed right now; their last good objects stay in effect.',
    registers,
    collect: () => {
      const v = read((p) => p.configFileErrors?.());
      if (v !== undefined) configFileErrors.set(v);
    },
  });
  const heldHosts = new Gauge({
    name: 'aeraki_held_hosts',
    help: 'ServiceEntry hosts whose output is kept as it was because an object of their own namespace they depend on is rejected.',
    registers,
    collect: () => {
      const v = read((p) => p.heldHosts?.());
      if (v !== undefined) heldHosts.set(v);
    },
  });
  const unservedRoutes = new Gauge({
    name: 'aeraki_unserved_routes',
    help: 'RDS routes that a managed EnvoyFilter names (one per route and EnvoyFilter) but the RDS server does not serve: a proxy connecting gets no routes for them.',
    registers,
    collect: () => {
      const v = read((p) => p.unservedRoutes?.());
      if (v !== undefined) unservedRoutes.set(v);
    },
  });
  const mcpConnectionState = new Gauge({
    name: 'aeraki_mcp_connection_state',
    help: 'State of the MCP stream to istiod: 1 for the current state, 0 for the others.',
    labelNames: ['state'],
    registers,
    collect: () => {
      const s = read((p) => p.mcp?.());
      mcpConnectionState.reset();
      if (s === undefined) return;
      const states = MCP_STATES.includes(s.state) ? MCP_STATES : [...MCP_STATES, s.state];
      for (const state of states) mcpConnectionState.set({ state }, state === s.state ? 1 : 0);
    },
  });
  const mcpSynced = new Gauge({
    name: 'aeraki_mcp_synced',
    help: '1 once every subscribed MCP type URL has received a full answer.',
    registers,
    collect: () => {
      const s = read((p) => p.mcp?.());
      if (s !== undefined) mcpSynced.set(s.synced ? 1 : 0);
    },
  });
  const mcpReconnects = mirrored(
    'aeraki_mcp_reconnects_total',
    'MCP streams re-opened after a failure.',
    (p) => p.mcp?.().reconnects,
  );
  const mcpNacksSent = mirrored(
    'aeraki_mcp_nacks_sent_total',
    'NACKs sent to istiod for MCP responses that could not be used.',
    (p) => p.mcp?.().nacksSent,
  );
  const mcpSuperseded = mirrored(
    'aeraki_mcp_superseded_responses_total',
    'MCP responses dropped unapplied because a newer full answer of the same type URL had already arrived.',
    (p) => p.mcp?.().superseded,
  );
  const mcpReceiveWorkerRestarts = mirrored(
    'aeraki_mcp_receive_worker_restarts_total',
    'MCP receive workers (the thread that decodes istiod responses) that failed and were replaced.',
    (p) => p.mcp?.().receiveWorkerRestarts,
  );
  const mcpResources = new Gauge({
    name: 'aeraki_mcp_resources',
    help: 'Valid resources last received over MCP, by type URL.',
    labelNames: ['type_url'],
    registers,
    collect: () => {
      const s = read((p) => p.mcp?.());
      mcpResources.reset();
      for (const t of s?.types ?? []) mcpResources.set({ type_url: t.typeUrl }, t.resources);
    },
  });
  const rdsStreams = new Gauge({
    name: 'aeraki_rds_streams',
    help: 'Open MetaProtocol RDS streams (SotW and delta).',
    registers,
    collect: () => {
      const r = read((p) => p.rds?.());
      if (r !== undefined) rdsStreams.set(r.streamsActive);
    },
  });
  const rdsStreamsOpened = mirrored(
    'aeraki_rds_streams_opened_total',
    'MetaProtocol RDS streams opened.',
    (p) => p.rds?.().streamsOpened,
  );
  const rdsPushes = mirrored(
    'aeraki_rds_pushes_total',
    'RDS responses sent to MetaProtocol proxies.',
    (p) => p.rds?.().responses,
  );
  const rdsAcks = mirrored('aeraki_rds_acks_total', 'RDS responses ACKed by proxies.', (p) => p.rds?.().acks);
  const rdsNacks = mirrored(
    'aeraki_rds_nacks_total',
    'RDS responses NACKed (rejected) by proxies.',
    (p) => p.rds?.().nacks,
  );
  const rdsInvalidRequests = mirrored(
    'aeraki_rds_invalid_requests_total',
    'RDS requests refused with INVALID_ARGUMENT (undecodable, oversized, unknown type URL).',
    (p) => p.rds?.().invalidRequests,
  );
  const rdsRefused: Counter<'reason'> = new Counter({
    name: 'aeraki_rds_refused_total',
    help: 'RDS clients and streams refused (identity, connection limit, idle stream, too many pings), by reason.',
    labelNames: ['reason'],
    registers,
    collect: () => {
      const refused = read((p) => p.rds?.().refused);
      rdsRefused.reset();
      for (const [reason, n] of [...(refused ?? [])].sort(([a], [b]) => compareStrings(a, b))) {
        rdsRefused.inc({ reason }, n);
      }
    },
  });
  const routeConfigsRejected = new Gauge({
    name: 'aeraki_route_configs_rejected',
    help: 'MetaProtocol route configurations that at least one connected proxy rejects (NACKs) in the version it was sent.',
    registers,
    collect: () => {
      const r = read((p) => p.routeAcks?.());
      if (r !== undefined) routeConfigsRejected.set(r.routeConfigsRejected);
    },
  });
  const proxiesRejectingRoutes = new Gauge({
    name: 'aeraki_proxies_rejecting_routes',
    help: 'Connected proxies that reject (NACK) at least one MetaProtocol route configuration in the version they were sent.',
    registers,
    collect: () => {
      const r = read((p) => p.routeAcks?.());
      if (r !== undefined) proxiesRejectingRoutes.set(r.proxiesRejecting);
    },
  });
  return {
    routeConfigsRejected,
    proxiesRejectingRoutes,
    rdsInvalidRequests,
    rdsRefused,
    configObjects,
    kindsUnavailable,
    rejectedObjects,
    configFileErrors,
    heldHosts,
    unservedRoutes,
    mcpConnectionState,
    mcpSynced,
    mcpReconnects,
    mcpNacksSent,
    mcpSuperseded,
    mcpReceiveWorkerRestarts,
    mcpResources,
    rdsStreams,
    rdsStreamsOpened,
    rdsPushes,
    rdsAcks,
    rdsNacks,
  };
}
