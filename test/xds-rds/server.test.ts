import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { ROUTE_CONFIGURATION_TYPE } from '../../src/model/constants.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { configKinds, type ConfigObject } from '../../src/model/objects.ts';
import type { TrackedView } from '../../src/kit/incremental/dependencies.ts';
import { generateDevCertificates } from '../../src/tools/dev-certs.ts';
import { RouteSource } from '../../src/xds-rds/route-source.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import type { RouteConfigurationJson } from '../../src/xds-rds/route-json.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';
import { ackOf, RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { foreignCa, testCa, writeCertDir, type CertDir } from '../fakes/test-ca.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';

/** Every kind read: the core's and the plugins'. */
const CONFIG_KINDS = configKinds(createPluginKinds());

const HOST = 'svc.example';
const NAME = `${HOST}_20880`;
const se = serviceEntry('ns', 'svc', {
  hosts: [HOST],
  ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
});
const other = serviceEntry('ns', 'other', {
  hosts: ['other.example'],
  ports: [{ number: 1, name: 'tcp-metaprotocol-x' }],
});
const third = serviceEntry('ns', 'third', {
  hosts: ['third.example'],
  ports: [{ number: 2, name: 'tcp-metaprotocol-x' }],
});
const router = (subset: string) =>
  metaRouter('ns', 'mr', {
    hosts: [HOST],
    routes: [
      {
        name: 'r',
        route: [{ destination: { host: HOST, subset } }],
        requestMutation: [],
        responseMutation: [],
      },
    ],
  });

/** A store whose whole content `set` replaces. */
function mutableView(initial: ConfigObject[]): { view: TrackedView; set(objects: ConfigObject[]): void } {
  const store = storeOf(initial);
  const set = (objects: ConfigObject[]) => {
    for (const kind of CONFIG_KINDS) {
      store.replaceKind(
        kind,
        objects.filter((o) => o.kind === kind),
      );
    }
  };
  return { view: store, set };
}

const clusterOf = (json: unknown) =>
  (json as RouteConfigurationJson).virtualHosts[0].routes[0]?.route.cluster;

describe('RDS server over mTLS', () => {
  let certs: CertDir;
  let server: RdsServer;
  let port: number;
  let source: RouteSource;
  let world: ReturnType<typeof mutableView>;
  const clients: RdsTestClient[] = [];
  const client = (t: Parameters<typeof clientTls>[0] = 'good') => {
    const c = new RdsTestClient(port, clientTls(t));
    clients.push(c);
    return c;
  };
  const clientTls = (t: 'good' | 'nocert' | 'foreign') => {
    const ca = testCa();
    if (t === 'nocert') return { ca: ca.ca };
    const f = t === 'foreign' ? foreignCa() : ca;
    return { ca: ca.ca, cert: f.clientCert, key: f.clientKey };
  };
  const change = (objects: ConfigObject[]) => {
    world.set(objects);
    source.onEvent({ type: 'updated', kind: 'MetaRouter', namespace: 'ns', name: 'mr' });
    source.flush();
  };

  before(async () => {
    certs = writeCertDir();
    world = mutableView([se, other, third, router('v1')]);
    const cache = new SnapshotCache();
    source = new RouteSource(world.view, cache, { logger: silentLogger });
    source.rebuild();
    server = new RdsServer(
      { host: '127.0.0.1', port: 0, logger: silentLogger, tls: { ...certs, pollIntervalMs: 60_000 } },
      cache,
    );
    port = await server.start();
  });

  after(async () => {
    for (const c of clients) c.close();
    source.stop();
    await server.stop();
    certs.remove();
  });

  it('serves the initial routes, pushes a MetaRouter change once, and nothing when nothing changed', async () => {
    const s = client().sotw();
    s.send(sotwRequest([NAME]));
    const r1 = await s.next();
    assert.equal(r1.typeUrl, ROUTE_CONFIGURATION_TYPE);
    assert.equal(r1.resources.length, 1);
    assert.equal(r1.resources[0]?.typeUrl, ROUTE_CONFIGURATION_TYPE);
    assert.equal(clusterOf(r1.resources[0]?.json), `outbound|20880|v1|${HOST}`);
    s.send(ackOf(r1, [NAME]));

    change([se, other, third, router('v1')]); // no effective change
    change([se, third, router('v1')]); // only another resource changed
    change([se, other, third, router('v2')]);
    const r2 = await s.next();
    assert.equal(r2.nonce, String(Number(r1.nonce) + 1), 'exactly one push between the two versions');
    assert.notEqual(r2.versionInfo, r1.versionInfo);
    assert.equal(clusterOf(r2.resources[0]?.json), `outbound|20880|v2|${HOST}`);
    s.send(ackOf(r2, [NAME]));
    assert.equal(s.inbox.pending(), 0);
    s.close();
  });

  it('supports delta subscribe and unsubscribe', async () => {
    const d = client().delta();
    d.send({
      node: { id: 'delta-proxy' },
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      resourceNamesSubscribe: [NAME],
    });
    const r1 = await d.next();
    assert.deepEqual(
      r1.resources.map((r) => r.name),
      [NAME],
    );
    d.send({
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      responseNonce: r1.nonce,
      resourceNamesSubscribe: ['other.example_1'],
    });
    const r2 = await d.next();
    assert.deepEqual(
      r2.resources.map((r) => r.name),
      ['other.example_1'],
    );
    // Unsubscribe NAME; subscribing to a third name makes the server answer, so we know it was processed.
    d.send({
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      responseNonce: r2.nonce,
      resourceNamesUnsubscribe: [NAME],
      resourceNamesSubscribe: ['third.example_2'],
    });
    const r3 = await d.next();
    assert.deepEqual(
      r3.resources.map((r) => r.name),
      ['third.example_2'],
    );
    change([se, third, router('v3')]); // changes NAME (unsubscribed) and removes other.example_1 (subscribed)
    const r4 = await d.next();
    assert.deepEqual(r4.resources, []);
    assert.deepEqual(r4.removedResources, ['other.example_1']);
    d.close();
  });

  it('refuses clients without a certificate or with one from another CA', async () => {
    for (const kind of ['nocert', 'foreign'] as const) {
      const s = client(kind).sotw();
      s.send(sotwRequest([NAME]));
      const status = await s.status;
      assert.equal(status.code, 14, `${kind}: ${status.details}`); // UNAVAILABLE: handshake refused
    }
  });

  it('refuses TLS older than 1.2', async () => {
    const ca = testCa();
    const err = await new Promise<Error | undefined>((resolve) => {
      const sock = tls.connect(
        {
          host: '127.0.0.1',
          port,
          servername: 'localhost',
          ca: ca.ca,
          cert: ca.clientCert,
          key: ca.clientKey,
          minVersion: 'TLSv1',
          maxVersion: 'TLSv1.1',
          ALPNProtocols: ['h2'],
        },
        () => {
          sock.destroy();
          resolve(undefined);
        },
      );
      sock.on('error', resolve);
    });
    assert.ok(err instanceof Error);
  });

  it('answers an unknown type URL with an error status', async () => {
    const s = client().sotw();
    s.send(sotwRequest([NAME], { typeUrl: 'type.googleapis.com/envoy.config.cluster.v3.Cluster' }));
    const status = await s.status;
    assert.equal(status.code, 3);
  });

  it('picks up a rotated server certificate without dropping open streams', async () => {
    const s = client().sotw();
    s.send(sotwRequest([NAME]));
    const r1 = await s.next();
    s.send(ackOf(r1, [NAME]));
    const ca = testCa();
    const rotated = generateDevCertificates({
      issuer: { cert: ca.ca, key: ca.caKey },
      extraDnsNames: ['rotated.example'],
    });
    certs.writeServer(rotated.serverCert, rotated.serverKey);
    assert.equal(server.reloadCertificates(), true);
    // A new handshake sees the new certificate.
    const san = await new Promise<string>((resolve, reject) => {
      const sock = tls.connect(
        {
          host: '127.0.0.1',
          port,
          servername: 'localhost',
          ca: ca.ca,
          cert: ca.clientCert,
          key: ca.clientKey,
          ALPNProtocols: ['h2'],
        },
        () => {
          const cert = sock.getPeerCertificate();
          sock.destroy();
          resolve(cert.subjectaltname ?? '');
        },
      );
      sock.on('error', reject);
    });
    assert.match(san, /rotated\.example/);
    assert.equal(readFileSync(certs.certFile, 'utf8'), rotated.serverCert);
    // The stream opened before the rotation still receives pushes.
    change([se, third, router('v4')]);
    const r2 = await s.next();
    assert.equal(clusterOf(r2.resources[0]?.json), `outbound|20880|v4|${HOST}`);
    // And new clients still connect.
    const s2 = client().sotw();
    s2.send(sotwRequest([NAME]));
    assert.equal(clusterOf((await s2.next()).resources[0]?.json), `outbound|20880|v4|${HOST}`);
    s.close();
    s2.close();
  });
});
