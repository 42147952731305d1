import * as grpc from '@grpc/grpc-js';
import { errorFields, type Logger } from '../util/logger.ts';
import { DeltaStream } from './delta-stream.ts';
import { RdsMetrics } from './metrics.ts';
import { rdsServiceDefinition } from './service.ts';
import type { SnapshotCache } from './snapshot.ts';
import { SotwStream } from './sotw-stream.ts';
import type { DeltaRequest, SotwRequest, StreamSink } from './stream-types.ts';
import { FileCertificateProvider, type TlsFiles } from '../util/file-certificates.ts';
import { peerIdentity } from './tls.ts';

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
  readonly logger: Logger;
}

type Call<Req> = grpc.ServerDuplexStream<Req, Buffer>;

/**
 * The MetaProtocol RDS gRPC server: StreamRoutes (SotW) and DeltaRoutes over mTLS, answering from a
 * SnapshotCache. TLS 1.2 is the minimum (Node's default `tls.DEFAULT_MIN_VERSION`); certificates are re-read when
 * their files change, without touching established streams.
 */
export class RdsServer {
  readonly metrics = new RdsMetrics();
  private readonly server: grpc.Server;
  private provider: FileCertificateProvider | undefined;
  private readonly streams = new Set<{ close(): void }>();

  constructor(
    private readonly options: RdsServerOptions,
    private readonly cache: SnapshotCache,
  ) {
    this.server = new grpc.Server({
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 1,
      'grpc.http2.min_ping_interval_without_data_ms': 10_000,
      'grpc.max_concurrent_streams': 1_000_000,
      'grpc.max_receive_message_length': 16 << 20,
    });
    this.server.addService(rdsServiceDefinition, {
      StreamRoutes: (call: Call<SotwRequest>) => this.serve(call, (deps) => new SotwStream(deps)),
      DeltaRoutes: (call: Call<DeltaRequest>) => this.serve(call, (deps) => new DeltaStream(deps)),
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
      this.server.bindAsync(address, creds, (err, p) => (err ? reject(err) : resolve(p)));
    });
    logger.info('rds: listening', { address, port, tls: !('insecure' in tls) });
    return port;
  }

  /** Re-reads the TLS files now (they are also polled); false with a caller's provider. */
  reloadCertificates(): boolean {
    return this.provider?.reload() ?? false;
  }

  /** Ends every stream and stops; waits at most `graceMs` for calls to finish. */
  async stop(): Promise<void> {
    for (const s of [...this.streams]) s.close();
    this.streams.clear();
    // Streams are long-lived: cancel them rather than wait for proxies to hang up.
    this.server.forceShutdown();
    this.provider?.close();
    await Promise.resolve();
  }

  private serve<Req>(
    call: Call<Req>,
    make: (deps: ConstructorParameters<typeof SotwStream>[0]) => {
      handleRequest(r: Req): void;
      close(): void;
    },
  ): void {
    const peer =
      'insecure' in this.options.tls
        ? 'unauthenticated'
        : peerIdentity(call.getAuthContext().sslPeerCertificate);
    const logger = this.options.logger.child({ peer });
    const sink: StreamSink = {
      send: (bytes) => {
        call.write(bytes);
      },
      fail: (code, message) => {
        call.emit('error', { code, details: message });
      },
    };
    const stream = make({ cache: this.cache, sink, logger, metrics: this.metrics, peer });
    this.streams.add(stream);
    const end = () => {
      stream.close();
      this.streams.delete(stream);
    };
    logger.debug('rds: stream opened', { method: call.getPath() });
    call.on('data', (req: Req) => {
      try {
        stream.handleRequest(req);
      } catch (err) {
        logger.error('rds: request failed', errorFields(err));
        end();
        call.emit('error', { code: grpc.status.INTERNAL, details: 'internal error' });
      }
    });
    call.on('end', () => {
      end();
      call.end();
    });
    call.on('cancelled', end);
    call.on('error', (err) => {
      logger.debug('rds: stream error', errorFields(err));
      end();
    });
    call.on('close', end);
  }
}
