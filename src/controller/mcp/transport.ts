import { readFile } from 'node:fs/promises';
import * as grpc from '@grpc/grpc-js';
import type { KeyPair } from '../../kit/certs/key-pair.ts';
import { ADS_METHOD } from '../../kit/mcp-protos.ts';
import type { McpProtos } from './protos.ts';

/**
 * The transport: a gRPC channel to istiod and SotW ADS streams on it. Plaintext or TLS (mesh root cert, and the
 * controller's own certificate when it has one), an optional `authorization: Bearer <token>` read from a file at
 * every stream open (projected tokens rotate),
 * keepalive, and no receive size limit (grpc-js defaults to 4 MiB; adsc uses MaxInt32).
 */
export { ADS_METHOD };

export interface TransportOptions {
  /** `host:port` of istiod. */
  readonly address: string;
  /** `auto` = plaintext when the port is 15010, as Aeraki does; TLS otherwise. */
  readonly tls: boolean | 'auto';
  /** PEM file with the mesh root certificate (TLS); system roots when absent. */
  readonly rootCertFile?: string;
  /** Service account token file; its content is sent as a bearer token. */
  readonly tokenFile?: string;
  /** TLS server name to verify when dialling by IP (istiod's cert names `istiod.<ns>.svc`). */
  readonly serverName?: string;
  readonly keepaliveTimeMs?: number;
  /**
   * The controller's own certificate chain and key, presented to istiod over TLS (istiod asks for a client
   * certificate and authenticates by it); read at every stream open, so a renewed certificate is used from the
   * next stream. Undefined (or no answer yet) = no client certificate.
   */
  readonly clientIdentity?: () => KeyPair | undefined;
}

export type ReadFileFn = (path: string) => Promise<Buffer>;

/** A DiscoveryRequest as a plain object (protobufjs camelCase field names). */
export interface DiscoveryRequestObject {
  readonly typeUrl: string;
  readonly versionInfo?: string;
  readonly responseNonce?: string;
  readonly resourceNames?: readonly string[];
  readonly node?: unknown;
  readonly errorDetail?: { readonly code: number; readonly message: string };
}

/** A decoded DiscoveryResponse (protobufjs message; Anys keep their `type_url`/`value` fields). */
export interface DiscoveryResponseMessage {
  readonly versionInfo?: string;
  readonly typeUrl?: string;
  readonly nonce?: string;
  readonly resources?: readonly { readonly type_url?: string; readonly value?: Uint8Array }[];
}

/** A stream whose responses are decoded DiscoveryResponses (open()). */
export type AdsStream = grpc.ClientDuplexStream<DiscoveryRequestObject, DiscoveryResponseMessage>;

/** A stream whose responses come as their encoded bytes (openRaw(): the MCP receive worker decodes them). */
export type RawAdsStream = grpc.ClientDuplexStream<DiscoveryRequestObject, Buffer>;

export function usesTls(address: string, tls: boolean | 'auto'): boolean {
  return tls === 'auto' ? !address.endsWith(':15010') : tls;
}

/** The HTTP/2 receive window of the MCP stream and connection (bytes). */
export const MCP_FLOW_CONTROL_WINDOW = 16 * 1024 * 1024;

export class AdsTransport {
  private client: grpc.Client | undefined;
  private clientCert: string | undefined;

  constructor(
    private readonly options: TransportOptions,
    private readonly protos: McpProtos,
    private readonly read: ReadFileFn = readFile,
  ) {}

  get tls(): boolean {
    return usesTls(this.options.address, this.options.tls);
  }

  /** Opens a new stream (re-using the channel unless the root certificate changed). Rejects on file errors. */
  open(): Promise<AdsStream> {
    const { DiscoveryResponse } = this.protos;
    return this.openWith((buf) => DiscoveryResponse.decode(buf) as DiscoveryResponseMessage);
  }

  /** As open(), the responses left encoded: the bytes grpc-js gathered, handed over as they are (receiver.ts). */
  openRaw(): Promise<RawAdsStream> {
    return this.openWith((buf) => buf);
  }

  private async openWith<T>(
    deserialize: (buf: Buffer) => T,
  ): Promise<grpc.ClientDuplexStream<DiscoveryRequestObject, T>> {
    const tls = this.tls;
    const rootCert =
      tls && this.options.rootCertFile ? await this.read(this.options.rootCertFile) : undefined;
    const token = this.options.tokenFile
      ? (await this.read(this.options.tokenFile)).toString('utf8').trim()
      : '';
    const identity = tls ? this.options.clientIdentity?.() : undefined;
    const certKey = `${rootCert ? rootCert.toString('base64') : String(tls)}|${identity?.cert.toString('base64') ?? ''}`;
    if (!this.client || this.clientCert !== certKey) {
      this.client?.close();
      this.client = this.newClient(tls, rootCert, identity);
      this.clientCert = certKey;
    }
    const metadata = new grpc.Metadata();
    if (token) metadata.set('authorization', `Bearer ${token}`);
    const { DiscoveryRequest } = this.protos;
    return this.client.makeBidiStreamRequest<DiscoveryRequestObject, T>(
      ADS_METHOD,
      (req) => Buffer.from(DiscoveryRequest.encode(DiscoveryRequest.fromObject(req)).finish()),
      deserialize,
      metadata,
    );
  }

  close(): void {
    this.client?.close();
    this.client = undefined;
    this.clientCert = undefined;
  }

  private newClient(tls: boolean, rootCert: Buffer | undefined, identity: KeyPair | undefined): grpc.Client {
    const channelOptions: grpc.ChannelOptions = {
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      'grpc.keepalive_time_ms': this.options.keepaliveTimeMs ?? 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 1,
      // istiod answers each type with its full state: megabytes at 10,000 services. HTTP/2's default 64 KiB
      // window makes such an answer crawl in window-sized round trips; 16 MiB (the ceiling of Go gRPC's
      // adaptive window) lets it arrive in one go.
      'grpc-node.flow_control_window': MCP_FLOW_CONTROL_WINDOW,
    };
    if (tls && this.options.serverName) {
      channelOptions['grpc.ssl_target_name_override'] = this.options.serverName;
      channelOptions['grpc.default_authority'] = this.options.serverName;
    }
    const creds = tls
      ? grpc.credentials.createSsl(rootCert ?? null, identity?.key ?? null, identity?.cert ?? null)
      : grpc.credentials.createInsecure();
    return new grpc.Client(this.options.address, creds, channelOptions);
  }
}
