/**
 * A small RDS client (`aeraki routes`): one SotW StreamRoutes stream that subscribes to route names the way a
 * MetaProtocol proxy does, hands every response to `onResponse` (resources decoded to proto3 JSON) and ACKs it.
 * The stream is not re-opened when it ends: `onEnd` is called once with the reason.
 */
import * as grpc from '@grpc/grpc-js';
import { spiffeServerCheck } from '../util/spiffe.ts';
import { ROUTE_CONFIGURATION_TYPE } from '../model/constants.ts';
import {
  decodeSotwResponse,
  encodeSotwRequest,
  rdsRawClientDefinition,
  type SotwResponse,
} from './rds-codec.ts';

export interface WatchRoutesOptions {
  /** `host:port` of the RDS server. */
  readonly address: string;
  /** PEM contents (not paths) of the CA, client certificate and key; or plaintext. */
  readonly tls: { readonly ca: Buffer; readonly cert: Buffer; readonly key: Buffer } | 'insecure';
  readonly names: readonly string[];
  /** xDS node id sent with the first request. */
  readonly nodeId?: string;
  /** TLS server name to verify (default: the address's host; `localhost` for a loopback IP). */
  readonly serverName?: string;
  /** Verify the server by this SPIFFE URI SAN instead of its name (a certificate from `--cert-provider istiod`). */
  readonly serverSpiffeId?: string;
  readonly onResponse: (response: SotwResponse) => void;
  readonly onEnd: (status: grpc.StatusObject) => void;
}

const Client = grpc.makeGenericClientConstructor(rdsRawClientDefinition, 'RouteDiscoveryService');

/** Opens the stream; returns a function that cancels it. */
export function watchRoutes(o: WatchRoutesOptions): { close(): void } {
  const creds =
    o.tls === 'insecure'
      ? grpc.credentials.createInsecure()
      : grpc.credentials.createSsl(
          o.tls.ca,
          o.tls.key,
          o.tls.cert,
          o.serverSpiffeId ? { checkServerIdentity: spiffeServerCheck(o.serverSpiffeId) } : {},
        );
  // Node refuses an IP as TLS server name (SNI); loopback addresses verify as `localhost` instead.
  const loopback = /^(127\.0\.0\.1|\[::1\]):\d+$/.test(o.address);
  const serverName = o.serverName ?? (loopback ? 'localhost' : undefined);
  const options: grpc.ClientOptions = serverName ? { 'grpc.ssl_target_name_override': serverName } : {};
  const client = new Client(o.address, creds, options);
  const start = (client as unknown as Record<string, () => grpc.ClientDuplexStream<Buffer, Buffer>>)
    .StreamRoutes;
  if (!start) throw new Error('StreamRoutes is missing from the client definition');
  const call = start.call(client);
  let ended = false;
  const end = (status: grpc.StatusObject) => {
    if (ended) return;
    ended = true;
    client.close();
    o.onEnd(status);
  };
  call.on('data', (bytes: Buffer) => {
    const resp = decodeSotwResponse(bytes);
    o.onResponse(resp);
    call.write(
      encodeSotwRequest({
        typeUrl: ROUTE_CONFIGURATION_TYPE,
        resourceNames: [...o.names],
        versionInfo: resp.versionInfo,
        responseNonce: resp.nonce,
      }),
    );
  });
  call.on('error', () => {}); // 'status' carries the same information
  call.on('status', end);
  call.write(
    encodeSotwRequest({
      node: { id: o.nodeId ?? 'sidecar~127.0.0.1~aeraki-routes.default~default.svc.cluster.local' },
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      resourceNames: [...o.names],
    }),
  );
  return {
    close: () => {
      call.cancel();
    },
  };
}
