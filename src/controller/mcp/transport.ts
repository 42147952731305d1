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

/** A stream whose responses come as their encoded bytes (the MCP receive worker's own stream). */
export type RawAdsStream = grpc.ClientDuplexStream<DiscoveryRequestObject, Buffer>;

export function usesTls(address: string, tls: boolean | 'auto'): boolean {
  return tls === 'auto' ? !address.endsWith(':15010') : tls;
}

/** The HTTP/2 receive window of the MCP stream and connection (bytes). */
export const MCP_FLOW_CONTROL_WINDOW = 16 * 1024 * 1024;

/**
 * What opening a stream needs, read on the main thread (files, the current client certificate) and handed to the
 * thread that owns the channel (the MCP receive worker, receiver.ts): plain data, cloned across threads.
 */
export interface AdsOpenSpec {
  readonly address: string;
  readonly tls: boolean;
  readonly serverName?: string;
  readonly keepaliveTimeMs?: number;
  readonly rootCert?: Uint8Array;
  /** The bearer token ('' for none). */
  readonly token: string;
  readonly identity?: { readonly cert: Uint8Array; readonly key: Uint8Array };
}

/** Reads what a stream open needs (the root certificate, the token, the client identity): at every open. */
export class AdsTransport {
  private channel: AdsChannel | undefined;

  constructor(
    private readonly options: TransportOptions,
    private readonly protos: McpProtos,
    private readonly read: ReadFileFn = readFile,
  ) {}

  get tls(): boolean {
    return usesTls(this.options.address, this.options.tls);
  }

  /** What the next stream open needs. Rejects on file errors. */
  async prepare(): Promise<AdsOpenSpec> {
    const tls = this.tls;
    const rootCert =
      tls && this.options.rootCertFile ? await this.read(this.options.rootCertFile) : undefined;
    const token = this.options.tokenFile
      ? (await this.read(this.options.tokenFile)).toString('utf8').trim()
      : '';
    const identity = tls ? this.options.clientIdentity?.() : undefined;
    return {
      address: this.options.address,
      tls,
      ...(this.options.serverName !== undefined ? { serverName: this.options.serverName } : {}),
      ...(this.options.keepaliveTimeMs !== undefined
        ? { keepaliveTimeMs: this.options.keepaliveTimeMs }
        : {}),
      ...(rootCert ? { rootCert } : {}),
      token,
      ...(identity ? { identity: { cert: identity.cert, key: identity.key } } : {}),
    };
  }

  /** Opens a new stream on this thread (re-using the channel unless the certificates changed). */
  async open(): Promise<AdsStream> {
    const spec = await this.prepare();
    this.channel ??= new AdsChannel(this.protos);
    const { DiscoveryResponse } = this.protos;
    return this.channel.open(spec, (buf) => DiscoveryResponse.decode(buf) as DiscoveryResponseMessage);
  }

  close(): void {
    this.channel?.close();
    this.channel = undefined;
  }
}

/**
 * The gRPC channel to istiod and the ADS streams on it, for the thread that owns it: the MCP client's receive
 * worker (its responses arrive there as bytes and never cross to the main thread) or the main thread (open()).
 */
export class AdsChannel {
  private client: grpc.Client | undefined;
  private clientCert: string | undefined;

  constructor(private readonly protos: McpProtos) {}

  /** A new stream; the channel is re-used unless the root or client certificate changed. */
  open<T>(
    spec: AdsOpenSpec,
    deserialize: (buf: Buffer) => T,
  ): grpc.ClientDuplexStream<DiscoveryRequestObject, T> {
    const b64 = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('base64') : '');
    const certKey = `${spec.rootCert ? b64(spec.rootCert) : String(spec.tls)}|${b64(spec.identity?.cert)}`;
    if (!this.client || this.clientCert !== certKey) {
      this.client?.close();
      this.client = newClient(spec);
      this.clientCert = certKey;
    }
    const metadata = new grpc.Metadata();
    if (spec.token) metadata.set('authorization', `Bearer ${spec.token}`);
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
}

function newClient(spec: AdsOpenSpec): grpc.Client {
  const channelOptions: grpc.ChannelOptions = {
    'grpc.max_receive_message_length': -1,
    'grpc.max_send_message_length': -1,
    'grpc.keepalive_time_ms': spec.keepaliveTimeMs ?? 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.keepalive_permit_without_calls': 1,
    // istiod answers each type with its full state: megabytes at 10,000 services. HTTP/2's default 64 KiB
    // window makes such an answer crawl in window-sized round trips; 16 MiB (the ceiling of Go gRPC's
    // adaptive window) lets it arrive in one go.
    'grpc-node.flow_control_window': MCP_FLOW_CONTROL_WINDOW,
  };
  if (spec.tls && spec.serverName) {
    channelOptions['grpc.ssl_target_name_override'] = spec.serverName;
    channelOptions['grpc.default_authority'] = spec.serverName;
  }
  const buf = (b: Uint8Array | undefined) => (b ? Buffer.from(b) : null);
  const creds = spec.tls
    ? grpc.credentials.createSsl(buf(spec.rootCert), buf(spec.identity?.key), buf(spec.identity?.cert))
    : grpc.credentials.createInsecure();
  return new grpc.Client(spec.address, creds, channelOptions);
}
