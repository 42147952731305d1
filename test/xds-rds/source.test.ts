import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { writeDevCertificates } from '../../src/tools/dev-certs.ts';
import { RouteSource } from '../../src/xds-rds/route-source.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { peerIdentity } from '../../src/xds-rds/tls.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';

describe('RouteSource', () => {
  // Short timers, on the system clock (flush() clears the pending one).
  it('rebuilds on ServiceEntry/DestinationRule/MetaRouter/ApplicationProtocol events only, debounced', () => {
    const se = serviceEntry('ns', 's', {
      hosts: ['s.example'],
      ports: [{ number: 1, name: 'tcp-metaprotocol-x' }],
    });
    const cache = new SnapshotCache();
    const source = new RouteSource(storeOf([se]), cache, {
      logger: silentLogger,
      quietMs: 20,
      maxWaitMs: 20,
    });
    source.onEvent({ type: 'added', kind: 'VirtualService', namespace: 'ns', name: 'v' });
    source.onEvent({ type: 'added', kind: 'Gateway', namespace: 'ns', name: 'g' });
    source.flush();
    assert.equal(source.rebuilds, 0);
    for (const kind of ['ServiceEntry', 'DestinationRule', 'MetaRouter', 'ApplicationProtocol'] as const) {
      source.onEvent({ type: 'updated', kind, namespace: 'ns', name: 'x' });
    }
    source.flush();
    assert.equal(source.rebuilds, 1, 'a burst of events gives one rebuild');
    assert.deepEqual([...cache.snapshot().resources.keys()], ['s.example_1']);
    source.stop();
  });

  it('times each event that changed the routes up to the push carrying it, and no other', () => {
    const se = (port: number) =>
      serviceEntry('ns', 's', {
        hosts: ['s.example'],
        ports: [{ number: port, name: 'tcp-metaprotocol-x' }],
      });
    const store = storeOf([se(1)]);
    const pushed: number[] = [];
    const changes: { names: string[]; at: number }[] = [];
    const source = new RouteSource(store, new SnapshotCache(), {
      logger: silentLogger,
      quietMs: 20,
      maxWaitMs: 20,
      onPushed: (ms) => pushed.push(ms),
      onRoutesChanged: (names, at) => changes.push({ names: [...names], at }),
      now: () => 1000,
    });
    source.rebuild();
    source.onEvent({ type: 'updated', kind: 'DestinationRule', namespace: 'ns', name: 'd', at: 900 });
    source.flush();
    assert.deepEqual(pushed, [], 'the routes did not change: no push, nothing timed');
    store.upsert(se(2));
    source.onEvent({ type: 'updated', kind: 'ServiceEntry', namespace: 'ns', name: 's', at: 950 });
    source.onEvent({ type: 'updated', kind: 'VirtualService', namespace: 'ns', name: 'v', at: 960 });
    source.onEvent({ type: 'updated', kind: 'MetaRouter', namespace: 'ns', name: 'm' });
    source.flush();
    assert.deepEqual(pushed, [50], 'only the relevant event with a time');
    assert.equal(changes.length, 1, 'one change, at its oldest relevant event');
    assert.equal(changes[0]?.at, 950);
    assert.ok(changes[0].names.length > 0);
    source.stop();
  });
});

describe('RouteSource: the MetaRouter each route is built from', () => {
  it('records the MetaRouter and its generation per rebuilt route; forgets them when it no longer applies', () => {
    const se = (name: string, host: string) =>
      serviceEntry('ns', name, { hosts: [host], ports: [{ number: 1, name: 'tcp-metaprotocol-x' }] });
    const mr = (generation: number, routes: boolean) =>
      metaRouter(
        'ns',
        'r',
        {
          hosts: ['s.example'],
          routes: routes
            ? [{ route: [{ destination: { host: 's.example' } }], requestMutation: [], responseMutation: [] }]
            : [],
        },
        { generation },
      );
    const store = storeOf([se('s', 's.example'), se('t', 't.example'), mr(1, true)]);
    let rebuilt = 0;
    const source = new RouteSource(store, new SnapshotCache(), {
      logger: silentLogger,
      onRebuilt: () => rebuilt++,
    });
    store.subscribe((e) => source.onEvent(e));
    source.rebuild();
    assert.equal(rebuilt, 1);
    assert.deepEqual(source.routesOf('ns', 'r'), [{ name: 's.example_1', generation: 1 }]);
    assert.deepEqual(source.routesOf('ns', 't'), [], 'a route without a MetaRouter has none');
    assert.equal(source.originOf('s.example_1'), 'MetaRouter/ns/r');
    assert.equal(source.originOf('t.example_1'), 'ServiceEntry/ns/t', 'the default route: its ServiceEntry');
    assert.equal(source.originOf('u.example_1'), undefined);
    store.upsert(mr(2, false));
    source.flush();
    assert.deepEqual(
      source.routesOf('ns', 'r'),
      [{ name: 's.example_1', generation: 2 }],
      'a MetaRouter without routes still decides the route (the default one)',
    );
    source.rebuild();
    assert.equal(rebuilt, 2, 'a rebuild that rebuilt nothing reports nothing');
    store.delete('MetaRouter', 'ns', 'r');
    source.flush();
    assert.deepEqual(source.routesOf('ns', 'r'), []);
    assert.equal(source.originOf('s.example_1'), 'ServiceEntry/ns/s');
    source.stop();
  });
});

describe('RouteSource on a manual clock', () => {
  it('rebuilds a quiet period after the last event, and at most the max wait after the first', async () => {
    const clock = new ManualClock(0);
    const store = storeOf([
      serviceEntry('ns', 's', { hosts: ['s.example'], ports: [{ number: 1, name: 'tcp-metaprotocol-x' }] }),
    ]);
    const source = new RouteSource(store, new SnapshotCache(), {
      logger: silentLogger,
      quietMs: 100,
      maxWaitMs: 1000,
      clock,
    });
    const event = { type: 'updated', kind: 'ServiceEntry', namespace: 'ns', name: 's' } as const;
    source.onEvent(event);
    clock.advance(99);
    assert.equal(source.rebuilds, 0);
    clock.advance(1);
    assert.equal(source.rebuilds, 1, 'a quiet period after the event');
    await source.idle();
    for (let t = 0; t < 1000; t += 50) {
      source.onEvent(event);
      clock.advance(50);
    }
    assert.equal(source.rebuilds, 2, 'events every 50 ms: one rebuild at the max wait');
    clock.advance(100);
    await source.idle();
    assert.equal(source.rebuilds, 2, 'that rebuild came after the last event: nothing left to do');
    source.stop();
    assert.equal(clock.pending(), 0, 'stop() leaves no timer');
  });
});

describe('dev certificates', () => {
  it('writes a CA, a server certificate for localhost and the service names, and a client certificate', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dev-certs-'));
    try {
      const paths = await writeDevCertificates(dir, { namespace: 'mesh' });
      const ca = new X509Certificate(readFileSync(paths.ca));
      const server = new X509Certificate(readFileSync(paths.serverCert));
      const client = new X509Certificate(readFileSync(paths.clientCert));
      assert.ok(ca.ca);
      assert.ok(server.verify(ca.publicKey) && client.verify(ca.publicKey));
      for (const name of ['localhost', 'aeraki', 'aeraki.mesh', 'aeraki.mesh.svc']) {
        assert.ok(server.checkHost(name), name);
      }
      assert.ok(server.checkIP('127.0.0.1'));
      assert.match(client.subjectAltName ?? '', /URI:spiffe:\/\//);
      assert.equal(statSync(paths.serverKey).mode & 0o777, 0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the peer by its SPIFFE URI SAN, else its CN', () => {
    assert.equal(
      peerIdentity({ subject: { CN: 'x' }, subjectaltname: 'DNS:a, URI:spiffe://cluster.local/ns/a/sa/b' }),
      'spiffe://cluster.local/ns/a/sa/b',
    );
    assert.equal(peerIdentity({ subject: { CN: 'meta-proxy' } }), 'meta-proxy');
    assert.equal(peerIdentity(undefined), 'unauthenticated');
  });
});
