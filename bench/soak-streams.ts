// The soak's RDS streams: each subscribed to one route as a MetaProtocol proxy is, ten streams per gRPC channel
// (connection), state-of-the-world or delta by connection (SOAK_RDS). Every response after the first reports the
// routes it carries; every response is acknowledged as a proxy acknowledges what it applied (SotW: version_info and
// response_nonce; delta: response_nonce), so the controller's AckTracker sees every stream answer every push.
import { ROUTE_CONFIGURATION_TYPE } from '../src/model/constants.ts';
import type { DeltaResponse, SotwResponse } from '../src/tools/rds-codec.ts';
import { RdsTestClient, ackOf, sotwRequest } from '../test/fakes/rds-client.ts';

const STREAMS_PER_CHANNEL = 10;
/**
 * Connections opened at once before waiting for their streams' first answers: every stream here comes from
 * 127.0.0.1, and the server lets at most 64 connections of one source be in their handshake at once
 * (src/util/handshake-guard.ts DEFAULT_HANDSHAKE_LIMITS); 1,000 real proxies come from as many addresses.
 */
const CHANNELS_AT_ONCE = 32;

/** SOAK_RDS: every connection SotW (the default), every one delta, or SotW and delta connections in turn. */
export type SoakRds = 'sotw' | 'delta' | 'mixed';

export interface SoakStreams {
  /** Streams that ended (they are not re-opened). */
  errors(): number;
  close(): void;
}

export interface StreamLayout {
  readonly count: number;
  readonly rds: SoakRds;
  /** Streams per route (SOAK_SUBSCRIBERS): stream i watches service floor(i / subscribers)'s route. */
  readonly subscribers: number;
}

/** Service i's route: `<host>_20880` (bench/synthetic.ts). */
export function routeOf(i: number): string {
  return `svc-${i}.ns-${i % 50}.svc.cluster.local_20880`;
}

/** The protocol of connection `c` (streams c*10 to c*10+9). */
export function protocolOf(c: number, rds: SoakRds): 'sotw' | 'delta' {
  if (rds === 'mixed') return c % 2 === 0 ? 'sotw' : 'delta';
  return rds;
}

/** The services whose routes some stream watches: 0 to watchedServices - 1. */
export function watchedServices(layout: StreamLayout): number {
  return Math.ceil(layout.count / layout.subscribers);
}

/** The first request of a delta stream for `names`, from proxy `node`. */
export function deltaSubscribe(node: string, names: readonly string[]): Record<string, unknown> {
  return { node: { id: node }, typeUrl: ROUTE_CONFIGURATION_TYPE, resourceNamesSubscribe: [...names] };
}

/** A delta ACK of `resp`: its nonce, nothing subscribed or unsubscribed. */
export function deltaAck(resp: DeltaResponse): Record<string, unknown> {
  return { typeUrl: ROUTE_CONFIGURATION_TYPE, responseNonce: resp.nonce };
}

/** The names of the routes a response carries. */
function carried(resp: SotwResponse | DeltaResponse): string[] {
  return resp.resources.map((r) => (r.json as { name: string }).name);
}

/**
 * Opens the streams on the RDS server at 127.0.0.1:port, CHANNELS_AT_ONCE connections at a time; resolves once each
 * has its first answer, and rejects when a stream ends before its first answer. `onPush` gets every route of every
 * later response, with its arrival time (Date.now), before the response is acknowledged.
 */
export async function openStreams(
  port: number,
  layout: StreamLayout,
  onPush: (route: string, at: number) => void,
): Promise<SoakStreams> {
  const clients: RdsTestClient[] = [];
  let ended = 0;
  let first: Promise<void>[] = [];
  for (let i = 0; i < layout.count; i++) {
    if (i > 0 && i % (STREAMS_PER_CHANNEL * CHANNELS_AT_ONCE) === 0) {
      await Promise.all(first);
      first = [];
    }
    const c = Math.floor(i / STREAMS_PER_CHANNEL);
    if (i % STREAMS_PER_CHANNEL === 0) clients.push(new RdsTestClient(port, 'insecure', '127.0.0.1'));
    const client = clients.at(-1)!;
    const names = [routeOf(Math.floor(i / layout.subscribers))];
    const node = `sidecar~10.0.${c >> 8}.${c & 255}~proxy-${i}.ns-${i % 50}~ns-${i % 50}.svc.cluster.local`;
    let answered!: () => void;
    let failed!: (err: unknown) => void;
    first.push(
      new Promise<void>((resolve, reject) => {
        answered = resolve;
        failed = reject;
      }),
    );
    const seen = (n: number, resp: SotwResponse | DeltaResponse) => {
      if (n === 0) answered();
      else for (const name of carried(resp)) onPush(name, Date.now());
    };
    const loop =
      protocolOf(c, layout.rds) === 'sotw'
        ? async () => {
            const stream = client.sotw();
            stream.send(sotwRequest(names, { node: { id: node } }));
            for (let n = 0; ; n++) {
              const resp = await stream.next(2 ** 31 - 1);
              seen(n, resp);
              stream.send(ackOf(resp, names));
            }
          }
        : async () => {
            const stream = client.delta();
            stream.send(deltaSubscribe(node, names));
            for (let n = 0; ; n++) {
              const resp = await stream.next(2 ** 31 - 1);
              seen(n, resp);
              stream.send(deltaAck(resp));
            }
          };
    loop().catch((err: unknown) => {
      ended++;
      failed(err); // no effect once answered
    });
  }
  await Promise.all(first);
  return {
    errors: () => ended,
    close: () => {
      for (const c of clients) c.close();
    },
  };
}
