import type { Http2Session } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.ts';
import { bindFailure, serveDuplex, shutDown, SHUTTING_DOWN, type EndStatus } from '../util/grpc-duplex.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import { AckTracker } from './acks.ts';
import { RdsAdmission } from './admission.ts';
import type { AdsCache } from './ads-cache.ts';
import { AdsDeltaStream } from './ads-delta.ts';
import { gatewayCheck } from './ads-identity.ts';
import { AdsPrograms } from './ads-programs.ts';
import { adsServiceDefinition } from './ads-service.ts';
import { AdsSotwStream } from './ads-sotw.ts';
import type { GatewayCheck } from './ads-stream-base.ts';
import { NameBudgets } from './budgets.ts';
import { DeltaStream } from './delta-stream.ts';
import { InFlightBudget } from './in-flight.ts';
import { DEFAULT_RDS_LIMITS, type RdsLimits } from './limits.ts';
import { RdsMetrics } from './metrics.ts';
import type { PeerPolicy } from '../util/peer-policy.ts';
import { ConnectionGuard, sessionPeerCertificate } from './connection-guard.ts';
import { rdsServiceDefinition } from './service.ts';
import type { SnapshotCache } from './snapshot.ts';
import { SotwStream } from './sotw-stream.ts';
import {
  STATUS_INVALID_ARGUMENT,
  type DeltaRequest,
  type SotwRequest,
  type StreamDeps,
  type StreamSink,
} from './stream-types.ts';
import { FileCertificateProvider, type TlsFiles } from '../kit/certs/file-certificates.ts';
import { peerIdentity } from './tls.ts';
import {
  DEFAULT_HANDSHAKE_LIMITS,
  grpcHttp2Servers,
  HandshakeGuard,
  type HandshakeLimits,
} from '../util/handshake-guard.ts';

export interface RdsServerOptions {
  /** Address to bind, e.g. `0.0.0.0` or `127.0.0.1`. */
  readonly host: string;
  /** 0 picks a free port (see `start()`'s result). */
  readonly port: number;
  /**
   * mTLS (client certificate required) from files watched by the server, or from a CertificateProvider owned by
   * the caller (its root verifies clients, its key pair is served), or `insecure: true` (`--rds-insecure`).
   */
  readonly tls:
    | (TlsFiles & { readonly pollIntervalMs?: number })
    | { readonly provider: grpc.experimental.CertificateProvider }
    | { readonly insecure: true };
  /** Who may read routes (with TLS; default: any SPIFFE id in `cluster.local`, every namespace). */
  readonly peers?: PeerPolicy;
  /** Limits against bad clients; unset fields take DEFAULT_RDS_LIMITS. */
  readonly limits?: Partial<RdsLimits>;
  /** Handshake timeout and cap of connections in their handshake (default DEFAULT_HANDSHAKE_LIMITS). */
  readonly handshake?: HandshakeLimits;
  /** Times idle streams, ping intervals and handshakes (default: the system clock). */
  readonly clock?: Clock;
  readonly logger: Logger;
}

/** What the server holds for open streams, by kind (RdsServer.heldState). */
export interface HeldState {
  readonly streams: number;
  readonly ackStreams: number;
  readonly ackRoutes: number;
  readonly watchedNames: number;
  readonly budgetConnections: number;
  readonly budgetIdentities: number;
  readonly budgetBytes: number;
  readonly inFlightBytes: number;
  readonly inFlightIdentities: number;
  readonly admittedIdentities: number;
  readonly openStreams: number;
}

const DEFAULT_PEERS: PeerPolicy = {
  trustDomain: 'cluster.local',
  trustDomainAliases: [],
  allowedNamespaces: [],
};

type Call<Req> = grpc.ServerDuplexStream<Req, Buffer>;

/**
 * The MetaProtocol RDS gRPC server: StreamRoutes (SotW) and DeltaRoutes over mTLS, answering from a
 * SnapshotCache. TLS 1.2 is the minimum (Node's default `tls.DEFAULT_MIN_VERSION`); certificates are re-read when
 * their files change, without touching established streams.
 *
 * Before a stream reads anything, RdsAdmission checks the client's identity (PERMISSION_DENIED) and its
 * connections (RESOURCE_EXHAUSTED). The limits (limits.ts) bound messages, streams per connection, pings
 * (GOAWAY `too_many_pings`), idle connections and streams that never send a request (DEADLINE_EXCEEDED); the
 * route-name budgets (budgets.ts) bound what one stream, connection and identity may make the server hold
 * (RESOURCE_EXHAUSTED).
 *
 * Given an AdsCache, the same listener also serves envoy.service.discovery.v3.AggregatedDiscoveryService
 * (StreamAggregatedResources, DeltaAggregatedResources) to the waypoint proxies, with the same admission (the
 * trust domain only: each stream checks that its peer is the Gateway its `node.cluster` names, ads-identity.ts),
 * limits, budgets, metrics and acknowledgement tracker; `waypointPrograms` reports their ACKs per Gateway.
 */
export class RdsServer {
  readonly metrics = new RdsMetrics();
  /** Per stream and per route: versions sent, acknowledged and rejected (on the server's clock). */
  readonly acks: AckTracker;
  /** Per waypoint Gateway, where its connected proxies stand (ADS ACKs of listeners and clusters). */
  readonly waypointPrograms = new AdsPrograms();
  /** Connections in their handshake (aeraki_tls_handshakes_total{listener="rds"}). */
  readonly handshakes: HandshakeGuard;
  private readonly server: grpc.Server;
  private readonly limits: RdsLimits;
  private readonly admission: RdsAdmission;
  private readonly budgets: NameBudgets;
  private readonly guard: ConnectionGuard;
  private readonly inFlight: InFlightBudget;
  private readonly clock: Clock;
  private provider: FileCertificateProvider | undefined;
  /** Ends each open stream with UNAVAILABLE (graceful stop). */
  private readonly open = new Set<(status: EndStatus) => void>();

  constructor(
    private readonly options: RdsServerOptions,
    private readonly cache: SnapshotCache,
    ads?: AdsCache,
  ) {
    this.limits = { ...DEFAULT_RDS_LIMITS, ...options.limits };
    this.clock = options.clock ?? systemClock;
    this.acks = new AckTracker({ clock: this.clock });
    const handshake = options.handshake ?? DEFAULT_HANDSHAKE_LIMITS;
    this.handshakes = new HandshakeGuard('rds', handshake, options.logger, this.clock);
    const secure = !('insecure' in options.tls);
    const policy = secure ? (options.peers ?? DEFAULT_PEERS) : undefined;
    this.admission = new RdsAdmission(policy, this.limits, this.metrics, options.logger);
    this.budgets = new NameBudgets(this.limits, (r, identity) =>
      this.admission.refused(r.reason, identity, r.message),
    );
    const identityOf = (session: Http2Session) =>
      secure ? peerIdentity(sessionPeerCertificate(session)) : 'unauthenticated';
    this.inFlight = new InFlightBudget(
      this.limits.maxInFlightBytesPerIdentity,
      identityOf,
      (identity, message) => this.admission.refused('in_flight_budget', identity, message),
    );
    this.guard = new ConnectionGuard(this.limits, this.clock, (session, reason) => {
      const id = identityOf(session);
      const message =
        reason === 'too_many_pings'
          ? `pings more often than every ${this.limits.minPingIntervalMs} ms`
          : `more than ${this.limits.maxInvalidRequestsPerConnection} invalid requests on one connection`;
      this.admission.refused(reason, id, message);
    });
    this.server = new grpc.Server({
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 1,
      'grpc.max_connection_idle_ms': this.limits.idleConnectionTimeoutMs,
      'grpc.max_concurrent_streams': this.limits.maxStreamsPerConnection,
      'grpc.max_receive_message_length': this.limits.maxReceiveBytes,
    });
    this.server.addService(rdsServiceDefinition, {
      StreamRoutes: (call: Call<SotwRequest>) => this.serve(call, (deps) => new SotwStream(deps)),
      DeltaRoutes: (call: Call<DeltaRequest>) => this.serve(call, (deps) => new DeltaStream(deps)),
    });
    if (ads) this.addAds(ads, policy);
  }

  private addAds(ads: AdsCache, policy: PeerPolicy | undefined): void {
    const inner = gatewayCheck(policy);
    const check: GatewayCheck = (nodeCluster, peer) => {
      const verdict = inner(nodeCluster, peer);
      if ('problem' in verdict) this.admission.refused('waypoint_identity', peer, verdict.problem);
      return verdict;
    };
    const programs = this.waypointPrograms;
    this.server.addService(adsServiceDefinition, {
      StreamAggregatedResources: (call: Call<SotwRequest>) =>
        this.serve(call, (deps) => new AdsSotwStream({ ...deps, ads, check, programs }), true),
      DeltaAggregatedResources: (call: Call<DeltaRequest>) =>
        this.serve(call, (deps) => new AdsDeltaStream({ ...deps, ads, check, programs }), true),
    });
  }

  /** Binds and serves; resolves with the bound port. Rejects when the TLS files are unusable or binding fails. */
  async start(): Promise<number> {
    const { tls, logger } = this.options;
    let creds: grpc.ServerCredentials;
    if ('insecure' in tls) {
      logger.warn('rds: serving WITHOUT TLS (--rds-insecure); proxies are not authenticated');
      creds = grpc.ServerCredentials.createInsecure();
    } else {
      if (!('provider' in tls)) this.provider = new FileCertificateProvider(tls, logger, tls.pollIntervalMs);
      const provider = 'provider' in tls ? tls.provider : this.provider!;
      // grpc-js passes its first argument on as the identity provider; ours serves both roles.
      creds = grpc.experimental.createCertificateProviderServerCredentials(provider, provider, true);
    }
    const address = `${this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host}:${this.options.port}`;
    const port = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(address, creds, (err, p) => (err ? reject(bindFailure(err)) : resolve(p)));
    });
    if (!this.guard.attach(this.server)) {
      throw new Error('rds: cannot enforce the connection limits on this grpc-js version');
    }
    for (const http2Server of grpcHttp2Servers(this.server) ?? []) this.handshakes.attachHttp2(http2Server);
    this.inFlight.attach(grpcHttp2Servers(this.server) ?? []);
    logger.info('rds: listening', { address, port, tls: !('insecure' in tls), limits: this.limits });
    return port;
  }

  /**
   * Sizes of what the server holds for open streams (all 0 once every client left): streams and routes in the
   * acknowledgement tracker, watched route names, budget accounts, identities admitted.
   */
  heldState(): HeldState {
    return {
      streams: this.metrics.streamsActive,
      ackStreams: this.acks.streamCount,
      ackRoutes: this.acks.routeCount,
      watchedNames: this.cache.watchedNameCount,
      budgetConnections: this.budgets.held.connections,
      budgetIdentities: this.budgets.held.identities,
      budgetBytes: this.budgets.held.bytes,
      inFlightBytes: this.inFlight.held.bytes,
      inFlightIdentities: this.inFlight.held.identities,
      admittedIdentities: this.admission.identityCount,
      openStreams: this.open.size,
    };
  }

  /** Re-reads the TLS files now (they are also polled); false with a caller's provider. */
  reloadCertificates(): boolean {
    return this.provider?.reload() ?? false;
  }

  /**
   * Graceful stop: ends every open stream with UNAVAILABLE "server shutting down" (proxies reconnect, to another
   * replica), then closes the listener and the connections (GOAWAY), cutting off whatever is left after
   * STOP_GRACE_MS. Idempotent.
   */
  async stop(): Promise<void> {
    for (const end of [...this.open]) end(SHUTTING_DOWN);
    this.open.clear();
    this.handshakes.close();
    await shutDown(this.server);
    this.provider?.close();
  }

  private serve<Req extends { readonly invalid?: string }>(
    call: Call<Req>,
    make: (deps: StreamDeps) => {
      handleRequest(r: Req): void;
      close(): void;
    },
    waypoint = false,
  ): void {
    const insecure = 'insecure' in this.options.tls;
    const cert = insecure ? undefined : call.getAuthContext().sslPeerCertificate;
    const peer = insecure ? 'unauthenticated' : peerIdentity(cert);
    // `<address>:<port>` of the connection, as ConnectionGuard keys it.
    const connection = call.getPeer();
    const admitted = this.admission.admit(cert, peer, connection, waypoint);
    if (!admitted.ok) {
      call.on('error', () => {});
      call.emit('error', { code: admitted.code, details: admitted.message });
      return;
    }
    const logger = this.options.logger.child({ peer });
    const sink: StreamSink = {
      send: (bytes) => {
        call.write(bytes);
      },
      fail: (code, message) => {
        call.emit('error', { code, details: message });
        if (code === STATUS_INVALID_ARGUMENT) this.guard.invalidRequest(connection);
      },
    };
    const budget = this.budgets.open(peer, connection);
    const stream = make({
      cache: this.cache,
      sink,
      logger,
      metrics: this.metrics,
      peer,
      acks: this.acks,
      budget,
    });
    let idle: TimerHandle | undefined;
    const end = () => {
      if (idle) this.clock.clearTimeout(idle);
      idle = undefined;
      admitted.release();
      stream.close();
      this.open.delete(shutdown);
    };
    const shutdown = (status: EndStatus) => {
      end();
      call.emit('error', status);
    };
    this.open.add(shutdown);
    const idleMs = this.limits.idleStreamTimeoutMs;
    if (idleMs > 0) {
      idle = this.clock.setTimeout(() => {
        idle = undefined;
        const message = `no request within ${idleMs} ms of opening the stream`;
        this.admission.refused('idle_stream', peer, message);
        end();
        call.emit('error', { code: grpc.status.DEADLINE_EXCEEDED, details: message });
      }, idleMs);
    }
    logger.debug('rds: stream opened', { method: call.getPath() });
    serveDuplex(call, {
      request: (req: Req) => {
        if (idle) this.clock.clearTimeout(idle);
        idle = undefined;
        stream.handleRequest(req);
      },
      end,
      failed: (err) => logger.error('rds: request failed', errorFields(err)),
      errored: (err) => logger.debug('rds: stream error', errorFields(err)),
    });
  }
}
