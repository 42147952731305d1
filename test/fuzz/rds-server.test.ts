// Fuzz of the RDS server over real mTLS connections: hostile SotW and delta streams (garbage, mutated and
// oversized requests, nonces of other streams, megabyte versions) interleaved on one HTTP/2 connection, beside
// a well-behaved stream on both that connection and a connection of its own. Every hostile stream ends with OK
// (it was served and hung up), INVALID_ARGUMENT or RESOURCE_EXHAUSTED naming the problem; the process keeps running and the
// well-behaved streams get every push. (The connection guard, which closes a connection after a few invalid
// requests, is lifted here so that one connection carries them all; hardening.test.ts tests it.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { silentLogger } from '../../src/util/logger.ts';
import { decodeDeltaResponse, decodeSotwResponse } from '../../src/tools/rds-codec.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';
import { ackOf, RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { testCa, writeCertDir, type CertDir } from '../fakes/test-ca.ts';
import { fuzzSeed, iterations, rng } from './prng.ts';
import { hostileRequest, REFUSAL, type Protocol } from './rds-requests.ts';

const HOST = 'svc.fuzz';
const NAME = `${HOST}_9000`;
const NAMES = [NAME, 'other.fuzz_9000'];

function routes(subset: string) {
  return buildRouteConfigurations(
    storeOf([
      serviceEntry('fuzz', 'svc', { hosts: [HOST], ports: [{ number: 9000, name: 'tcp-metaprotocol-x' }] }),
      serviceEntry('fuzz', 'other', {
        hosts: ['other.fuzz'],
        ports: [{ number: 9000, name: 'tcp-metaprotocol-x' }],
      }),
      metaRouter('fuzz', 'mr', {
        hosts: [HOST],
        routes: [
          {
            name: 'r',
            route: [{ destination: { host: HOST, subset } }],
            requestMutation: [],
            responseMutation: [],
          },
        ],
      }),
    ]),
  ).routes;
}

/** Sends `messages` on a raw call, half-closes it, and resolves with its final status and the responses' nonces. */
function hostileCall(
  client: RdsTestClient,
  protocol: Protocol,
  messages: readonly Buffer[],
): Promise<{ status: grpc.StatusObject; nonces: string[] }> {
  const call = client.raw(protocol);
  const nonces: string[] = [];
  call.on('data', (b: Buffer) =>
    nonces.push(protocol === 'sotw' ? decodeSotwResponse(b).nonce : decodeDeltaResponse(b).nonce),
  );
  call.on('error', () => {});
  const done = new Promise<{ status: grpc.StatusObject; nonces: string[] }>((resolve) =>
    call.on('status', (status: grpc.StatusObject) => resolve({ status, nonces })),
  );
  for (const m of messages) call.write(m);
  call.end();
  return done;
}

describe('fuzz: RDS server, hostile streams beside a good one on one connection', () => {
  let certs: CertDir;
  let cache: SnapshotCache;
  let server: RdsServer;
  let client: RdsTestClient;
  let own: RdsTestClient;

  before(async () => {
    certs = writeCertDir();
    cache = new SnapshotCache();
    cache.setRoutes(routes('v0'));
    server = new RdsServer(
      {
        host: '127.0.0.1',
        port: 0,
        logger: silentLogger,
        tls: { ...certs, pollIntervalMs: 60_000 },
        limits: { maxInvalidRequestsPerConnection: 1_000_000 },
      },
      cache,
    );
    const port = await server.start();
    const ca = testCa();
    client = new RdsTestClient(port, { ca: ca.ca, cert: ca.clientCert, key: ca.clientKey });
    own = new RdsTestClient(port, { ca: ca.ca, cert: ca.clientCert, key: ca.clientKey });
  });

  after(async () => {
    client.close();
    own.close();
    await server.stop();
    certs.remove();
  });

  it('refuses by name or serves every hostile stream; the good stream gets every push', async () => {
    const seed = fuzzSeed('rds-server');
    const r = rng(seed);
    const goods = [client.sotw(), own.sotw()];
    for (const g of goods) g.send(sotwRequest([NAME]));
    let last = await goods[0]!.next();
    await goods[1]!.next();
    for (const g of goods) g.send(ackOf(last, [NAME]));
    const recent: string[] = [];
    const batches = Math.max(1, Math.ceil(iterations(30) / 10));
    const codes = new Map<number, number>();
    for (let b = 0; b < batches; b++) {
      const calls = Array.from({ length: 10 }, () => {
        const protocol = r.pick(['sotw', 'delta'] as const);
        const messages = Array.from({ length: 1 + r.int(3) }, () =>
          hostileRequest(r, protocol, NAMES, recent),
        );
        return hostileCall(client, protocol, messages);
      });
      cache.setRoutes(routes(`v${b + 1}`));
      for (const { status, nonces } of await Promise.all(calls)) {
        codes.set(status.code, (codes.get(status.code) ?? 0) + 1);
        recent.push(...nonces);
        const why = `seed ${seed}, batch ${b}: ${status.code} ${status.details}`;
        const refusals = [grpc.status.INVALID_ARGUMENT, grpc.status.RESOURCE_EXHAUSTED];
        assert.ok([grpc.status.OK, ...refusals].includes(status.code), why);
        if (refusals.includes(status.code)) assert.match(status.details, REFUSAL, why);
      }
      let push = last;
      for (const g of goods) {
        push = await g.next();
        assert.notEqual(push.versionInfo, last.versionInfo, `seed ${seed}, batch ${b}`);
        assert.equal(push.versionInfo, cache.snapshot().version, `seed ${seed}, batch ${b}`);
        assert.equal(push.resources.length, 1);
        g.send(ackOf(push, [NAME]));
      }
      last = push;
    }
    assert.ok((codes.get(grpc.status.INVALID_ARGUMENT) ?? 0) > 0, `seed ${seed}: some streams were refused`);
    for (const g of goods) g.close();
  });
});
