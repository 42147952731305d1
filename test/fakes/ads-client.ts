// An ADS client for tests, playing a waypoint proxy: raw-bytes gRPC calls on StreamAggregatedResources /
// DeltaAggregatedResources (grpc-js, mTLS on loopback), requests encoded from protobufjs object form, responses
// decoded with every resource turned back into proto3 JSON (src/xds-rds/proto-json.ts) for xdsProblems. The
// stream, the connection and the DiscoveryResponse framing are the RDS client's (rds-client.ts, src/tools/rds-codec.ts).
import * as grpc from '@grpc/grpc-js';
import {
  decodeDeltaWith,
  decodeSotwWith,
  encodeDeltaRequest,
  encodeSotwRequest,
  type DeltaResponse,
  type RawAny,
  type SotwResponse,
} from '../../src/tools/rds-codec.ts';
import { adsRawClientDefinition } from '../../src/xds-rds/ads-service.ts';
import { decodeJson } from '../../src/xds-rds/proto-json.ts';
import { connectTestClient, RdsTestStream, type ClientTls } from './rds-client.ts';

const Client = grpc.makeGenericClientConstructor(adsRawClientDefinition, 'AggregatedDiscoveryService');

export interface AdsResourceJson {
  readonly typeUrl: string;
  readonly name: string;
  /** The resource as canonical proto3 JSON. */
  readonly json: Record<string, unknown>;
  /** Delta only: the Resource's version. */
  readonly version?: string;
}

export type AdsSotwResponse = SotwResponse<AdsResourceJson>;

export type AdsDeltaResponse = DeltaResponse<AdsResourceJson>;

function resourceOf(any: RawAny, version?: string): AdsResourceJson {
  const typeUrl = any.type_url ?? '';
  const json = decodeJson(typeUrl, any.value ?? new Uint8Array()) as Record<string, unknown>;
  const name = json['name'] ?? json['clusterName'];
  return {
    typeUrl,
    name: typeof name === 'string' ? name : '',
    json,
    ...(version !== undefined ? { version } : {}),
  };
}

export function decodeAdsSotw(bytes: Buffer): AdsSotwResponse {
  return decodeSotwWith(bytes, (a) => resourceOf(a));
}

export function decodeAdsDelta(bytes: Buffer): AdsDeltaResponse {
  return decodeDeltaWith(bytes, (any, r) => resourceOf(any, r.version ?? ''));
}

/** One ADS stream: a queue of decoded responses, and requests in protobufjs object form (lowerCamelCase). */
export type AdsTestStream<Resp> = RdsTestStream<Resp>;

export class AdsTestClient {
  private readonly client: grpc.Client;

  constructor(port: number, tls: ClientTls | 'insecure', host = 'localhost') {
    this.client = connectTestClient(Client, port, tls, host);
  }

  sotw(): AdsTestStream<AdsSotwResponse> {
    return new RdsTestStream(this.raw('StreamAggregatedResources'), decodeAdsSotw, encodeSotwRequest);
  }

  delta(): AdsTestStream<AdsDeltaResponse> {
    return new RdsTestStream(this.raw('DeltaAggregatedResources'), decodeAdsDelta, encodeDeltaRequest);
  }

  private raw(method: string): grpc.ClientDuplexStream<Buffer, Buffer> {
    const methods = this.client as unknown as Record<string, () => grpc.ClientDuplexStream<Buffer, Buffer>>;
    return methods[method]!.call(this.client);
  }

  close(): void {
    this.client.close();
  }
}

/** The node a waypoint proxy of Gateway `namespace/name` sends (bootstrap: node.cluster `W.N`). */
export function waypointNode(namespace: string, name: string, pod = `${name}-0`): Record<string, unknown> {
  return { id: `${pod}.${namespace}`, cluster: `${name}.${namespace}` };
}

/** An ACK of a SotW response (same names). */
export function sotwAck(resp: AdsSotwResponse, names: readonly string[] = []): Record<string, unknown> {
  return {
    typeUrl: resp.typeUrl,
    resourceNames: [...names],
    versionInfo: resp.versionInfo,
    responseNonce: resp.nonce,
  };
}
