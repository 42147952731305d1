// The registry's MCP server against the project's own MCP client (src/controller/mcp) and a raw ADS stream.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { McpClient } from '../../../src/controller/mcp/client.ts';
import { ConfigStore } from '../../../src/controller/store.ts';
import { generateAll } from '../../../src/envoyfilter/generate-all.ts';
import { createGenerators } from '../../../src/plugins/registry.ts';
import { ADS_METHOD, loadMcpProtos } from '../../../src/kit/mcp-protos.ts';
import { ServiceEntryMcpServer } from '../../../src/registry/mcp/server.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { waitForStatus } from '../../fakes/istiod/harness.ts';
import { meshClient, testCa, writeCertDir, type CertDir } from '../../fakes/test-ca.ts';
import { endpoint, registryEntry } from './entries.ts';
import { INSECURE, ISTIOD, meshTls } from './tls.ts';
import { recordingLogger } from '../../support/recording-logger.ts';
import type { PeerPolicy } from '../../../src/util/peer-policy.ts';

const protos = loadMcpProtos();
const SE_V1 = 'networking.istio.io/v1/ServiceEntry';
const SE_V1ALPHA3 = 'networking.istio.io/v1alpha3/ServiceEntry';
const VS_V1 = 'networking.istio.io/v1/VirtualService';
const DR_V1 = 'networking.istio.io/v1/DestinationRule';

interface Response {
  versionInfo: string;
  typeUrl: string;
  nonce: string;
  resources: { type_url: string; value: Uint8Array }[];
}

/** A raw SotW ADS stream: sends requests, queues decoded responses. */
class RawStream {
  readonly responses: Response[] = [];
  private readonly waiters: (() => void)[] = [];
  private readonly client: grpc.Client;
  private readonly call: grpc.ClientDuplexStream<Record<string, unknown>, Response>;

  constructor(port: number) {
    this.client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const { DiscoveryRequest, DiscoveryResponse } = protos;
    this.call = this.client.makeBidiStreamRequest(
      ADS_METHOD,
      (r: Record<string, unknown>) =>
        Buffer.from(DiscoveryRequest.encode(DiscoveryRequest.fromObject(r)).finish()),
      (b: Buffer) => DiscoveryResponse.decode(b) as unknown as Response,
    );
    this.call.on('data', (r: Response) => {
      this.responses.push(r);
      for (const w of this.waiters.splice(0)) w();
    });
    this.call.on('error', () => {});
  }

  send(req: Record<string, unknown>): void {
    this.call.write(req);
  }

  /** Resolves with the n-th response (1-based) once it arrived. */
  async nth(n: number): Promise<Response> {
    while (this.responses.length < n) await new Promise<void>((r) => this.waiters.push(r));
    return this.responses[n - 1]!;
  }

  close(): void {
    this.call.cancel();
    this.client.close();
  }
}

/** Decodes a response's resources into {name, version, labels, body} with the body as a plain object. */
function decodeResources(
  r: Response,
): { name: string; version: string; labels: Record<string, string>; spec: any }[] {
  const SE = protos.bodies.get('type.googleapis.com/istio.networking.v1alpha3.ServiceEntry')!;
  return r.resources.map((any) => {
    assert.equal(any.type_url, 'type.googleapis.com/istio.mcp.v1alpha1.Resource');
    const res = protos.Resource.toObject(protos.Resource.decode(any.value), { enums: String }) as any;
    assert.equal(
      res.body.typeUrl ?? res.body.type_url,
      'type.googleapis.com/istio.networking.v1alpha3.ServiceEntry',
    );
    const spec = SE.toObject(SE.decode(res.body.value), { enums: String });
    return {
      name: res.metadata.name,
      version: res.metadata.version,
      labels: res.metadata.labels ?? {},
      spec,
    };
  });
}

const NODE = { id: 'sidecar~10.0.0.1~istiod-1.istio-system~istio-system.svc.cluster.local' };

describe('ServiceEntryMcpServer', () => {
  let server: ServiceEntryMcpServer;
  let port: number;
  const streams: RawStream[] = [];
  const open = (): RawStream => {
    const s = new RawStream(port);
    streams.push(s);
    return s;
  };

  before(async () => {
    server = new ServiceEntryMcpServer({ host: '127.0.0.1', port: 0, logger: silentLogger, tls: INSECURE });
    server.update([
      registryEntry('org.apache.dubbo.samples.DemoService', [
        endpoint('10.1.0.1'),
        endpoint('10.1.0.2', '2.0.0'),
      ]),
    ]);
    port = await server.start();
  });

  after(async () => {
    for (const s of streams) s.close();
    await server.stop();
  });

  it('answers both ServiceEntry type URLs with the full set, endpoints included, and other types with nothing', async () => {
    const s = open();
    s.send({ typeUrl: SE_V1, node: NODE });
    s.send({ typeUrl: SE_V1ALPHA3 });
    s.send({ typeUrl: VS_V1 });
    const answers = [await s.nth(1), await s.nth(2), await s.nth(3)];
    const byUrl = new Map(answers.map((a) => [a.typeUrl, a]));
    const v1 = byUrl.get(SE_V1)!;
    const v1alpha3 = byUrl.get(SE_V1ALPHA3)!;
    assert.equal(byUrl.get(VS_V1)!.resources.length, 0);
    assert.deepEqual(decodeResources(v1), decodeResources(v1alpha3));
    const [res] = decodeResources(v1);
    assert.equal(res!.name, 'dubbo/zk-org-apache-dubbo-samples-demoservice');
    assert.match(res!.version, /^[0-9a-f]{16}$/);
    assert.deepEqual(res!.labels, { manager: 'Aeraki', registry: 'zk' });
    assert.deepEqual(res!.spec.hosts, ['org.apache.dubbo.samples.demoservice']);
    assert.equal(res!.spec.location, 'MESH_INTERNAL');
    assert.equal(res!.spec.resolution, 'STATIC');
    assert.deepEqual(
      res!.spec.endpoints.map((e: any) => [e.address, e.ports, e.labels.version]),
      [
        ['10.1.0.1', { 'tcp-metaprotocol-dubbo': 20880 }, '1.0.0'],
        ['10.1.0.2', { 'tcp-metaprotocol-dubbo': 20880 }, '2.0.0'],
      ],
    );
    assert.equal(v1.versionInfo, server.version);
    assert.notEqual(v1.nonce, v1alpha3.nonce);
  });

  it('ACKs cause no response; a change pushes only ServiceEntry watchers; an unchanged set pushes nothing', async () => {
    const se = open();
    const vs = open();
    se.send({ typeUrl: SE_V1, node: NODE });
    vs.send({ typeUrl: VS_V1, node: NODE });
    const first = await se.nth(1);
    const vsFirst = await vs.nth(1);
    const acksBefore = server.counters.acks;
    se.send({ typeUrl: SE_V1, versionInfo: first.versionInfo, responseNonce: first.nonce });
    vs.send({ typeUrl: VS_V1, versionInfo: vsFirst.versionInfo, responseNonce: vsFirst.nonce });
    // A stale nonce is ignored (no answer, no ACK counted).
    se.send({ typeUrl: SE_V1, responseNonce: 'stale-nonce' });
    // An initial request for another type on each stream: its answer proves the requests before it were handled.
    se.send({ typeUrl: DR_V1 });
    vs.send({ typeUrl: DR_V1 });
    await se.nth(2);
    await vs.nth(2);
    const entries = [
      registryEntry('org.apache.dubbo.samples.DemoService', [endpoint('10.1.0.1')]),
      registryEntry('org.apache.dubbo.samples.GreetingService', [
        endpoint('10.2.0.1', '1.0.0', { weight: 3, locality: 'r1/z1', serviceAccount: 'greeter' }),
      ]),
    ];
    server.update(entries);
    const second = await se.nth(3);
    assert.notEqual(second.versionInfo, first.versionInfo);
    assert.equal(server.counters.acks, acksBefore + 2);
    const decoded = decodeResources(second);
    assert.deepEqual(
      decoded.map((r) => r.name),
      ['dubbo/zk-org-apache-dubbo-samples-demoservice', 'dubbo/zk-org-apache-dubbo-samples-greetingservice'],
    );
    const greeter = decoded[1]!.spec.endpoints[0];
    assert.deepEqual([greeter.weight, greeter.locality, greeter.serviceAccount], [3, 'r1/z1', 'greeter']);
    // The same set in another order: same version, no push.
    const responses = server.counters.responses;
    server.update([...entries].reverse());
    assert.equal(server.counters.responses, responses);
    // The VirtualService watcher was never pushed.
    se.send({ typeUrl: SE_V1, versionInfo: second.versionInfo, responseNonce: second.nonce });
    server.update([]);
    const third = await se.nth(4);
    assert.equal(third.resources.length, 0);
    assert.equal(vs.responses.length, 2);
  });

  it('counts a NACK and does not resend', async () => {
    const s = open();
    s.send({ typeUrl: SE_V1, node: NODE });
    const first = await s.nth(1);
    const nacks = server.counters.nacks;
    const responses = server.counters.responses;
    s.send({ typeUrl: SE_V1, responseNonce: first.nonce, errorDetail: { code: 3, message: 'bad endpoint' } });
    // A request after the NACK on a new type proves the NACK was processed first (in-order stream).
    s.send({ typeUrl: VS_V1 });
    await s.nth(2);
    assert.equal(server.counters.nacks, nacks + 1);
    assert.equal(server.counters.responses, responses + 1);
  });
});

describe('ServiceEntryMcpServer before its first update', () => {
  it('holds ServiceEntry requests (no empty answer), answers other types, and answers once the set is known', async () => {
    const server = new ServiceEntryMcpServer({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      tls: INSECURE,
    });
    const port = await server.start();
    const s = new RawStream(port);
    try {
      s.send({ typeUrl: SE_V1, node: NODE });
      s.send({ typeUrl: VS_V1 });
      const first = await s.nth(1);
      assert.equal(first.typeUrl, VS_V1, 'the ServiceEntry request is held');
      assert.equal(server.version, undefined);
      server.update([registryEntry('org.apache.dubbo.samples.DemoService', [endpoint('10.1.0.1')])]);
      const second = await s.nth(2);
      assert.equal(second.typeUrl, SE_V1);
      assert.equal(second.resources.length, 1);
      assert.equal(s.responses.length, 2, 'the VirtualService answer is not resent');
    } finally {
      s.close();
      await server.stop();
    }
  });
});

describe('ServiceEntryMcpServer with the project MCP client', () => {
  it('fills the client store with the ServiceEntries and follows updates', async () => {
    const server = new ServiceEntryMcpServer({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      tls: INSECURE,
    });
    server.update([registryEntry('org.apache.dubbo.samples.DemoService', [endpoint('10.1.0.1')])]);
    const port = await server.start();
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const client = new McpClient(
      {
        address: `127.0.0.1:${port}`,
        tls: false,
        apiVersion: 'auto',
        revision: '',
        node: { podName: 'aeraki-0', namespace: 'istio-system', podIp: '10.0.0.2' },
        backoff: { random: () => 0.5 },
      },
      { store, logger: silentLogger },
    );
    try {
      client.start();
      await client.whenSynced();
      const names = () => store.list('ServiceEntry').map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
      assert.deepEqual(names(), ['dubbo/zk-org-apache-dubbo-samples-demoservice']);
      const se = store.get('ServiceEntry', 'dubbo', 'zk-org-apache-dubbo-samples-demoservice')!;
      assert.deepEqual(se.spec.hosts, ['org.apache.dubbo.samples.demoservice']);
      assert.deepEqual(
        se.spec.ports.map((p) => p.name),
        ['tcp-metaprotocol-dubbo'],
      );
      assert.equal(se.metadata.labels['registry'], 'zk');
      // What the controller generates from them: the MetaProtocol EnvoyFilter of the VIP's listener.
      const generated = generateAll(store, createGenerators(), { namespaceScope: false });
      assert.deepEqual(generated.issues, []);
      const outbound = generated.objects.filter((o) => o.metadata.name.includes('outbound'));
      assert.equal(outbound.length, 1, JSON.stringify(generated.objects.map((o) => o.metadata.name)));
      assert.match(JSON.stringify(outbound[0]!.spec), /240\.240\.0\.7_20880/);
      assert.match(JSON.stringify(outbound[0]!.spec), /envoy\.filters\.network\.meta_protocol_proxy/);
      server.update([registryEntry('org.apache.dubbo.samples.GreetingService', [endpoint('10.2.0.1')])]);
      await waitForStatus(
        client,
        () => names().length === 1 && names()[0]!.endsWith('greetingservice'),
        'update',
      );
      assert.equal(server.counters.nacks, 0);
    } finally {
      await client.stop();
      await server.stop();
    }
  });
});

/** One ADS call over TLS with this client certificate (none with ''), or plaintext: 'answered' or the gRPC status. */
function tlsCall(port: number, identity: string, typeUrl = SE_V1): Promise<string> {
  return new Promise<string>((resolve) => {
    const pems = testCa();
    const c = identity && identity !== 'plaintext' ? meshClient([identity]) : undefined;
    const creds =
      identity === 'plaintext'
        ? grpc.credentials.createInsecure()
        : grpc.credentials.createSsl(
            Buffer.from(pems.ca),
            c ? Buffer.from(c.key) : null,
            c ? Buffer.from(c.cert) : null,
          );
    const client = new grpc.Client(`127.0.0.1:${port}`, creds, {
      'grpc.ssl_target_name_override': 'localhost',
    });
    const { DiscoveryRequest } = protos;
    const stream = client.makeBidiStreamRequest(
      ADS_METHOD,
      (r: Record<string, unknown>) =>
        Buffer.from(DiscoveryRequest.encode(DiscoveryRequest.fromObject(r)).finish()),
      (b: Buffer) => b,
    );
    stream.on('data', () => {
      stream.cancel();
      client.close();
      resolve('answered');
    });
    stream.on('error', (err: grpc.ServiceError) => {
      client.close();
      resolve(grpc.status[err.code]);
    });
    stream.write({ typeUrl, node: NODE });
  });
}

describe('ServiceEntryMcpServer over mTLS', () => {
  let certs: CertDir;
  before(() => {
    certs = writeCertDir();
  });
  after(() => certs.remove());

  const start = async (peers?: PeerPolicy) => {
    const logger = recordingLogger();
    const server = new ServiceEntryMcpServer({
      host: '127.0.0.1',
      port: 0,
      logger,
      tls: meshTls(),
      ...(peers ? { peers } : {}),
    });
    server.update([registryEntry('org.apache.dubbo.samples.DemoService', [endpoint('10.1.0.1')])]);
    return { server, port: await server.start(), logger };
  };

  it("by default only istiod's identity reads; other identities PERMISSION_DENIED, no certificate or plaintext UNAVAILABLE", async () => {
    const { server, port, logger } = await start();
    try {
      assert.equal(await tlsCall(port, ISTIOD), 'answered');
      assert.equal(await tlsCall(port, 'spiffe://cluster.local/ns/shop/sa/orders'), 'PERMISSION_DENIED');
      assert.equal(
        await tlsCall(port, 'spiffe://other.domain/ns/istio-system/sa/istiod'),
        'PERMISSION_DENIED',
      );
      assert.equal(await tlsCall(port, ''), 'UNAVAILABLE', 'the handshake needs a client certificate');
      assert.equal(await tlsCall(port, 'plaintext'), 'UNAVAILABLE');
      assert.deepEqual(Object.fromEntries(server.refused), { identity: 1, trust_domain: 1 });
      const refusal = logger.records.find((r) => r.level === 'warn' && /refused/.test(r.message));
      assert.match(
        refusal?.message ?? '',
        /ns\/shop\/sa\/orders" may not read \(allowed: spiffe:\/\/cluster\.local\/ns\/istio-system\/sa\/istiod\)/,
      );
    } finally {
      await server.stop();
    }
  });

  it('a wider list admits its identities (and an alias trust domain counts as the trust domain)', async () => {
    const { server, port } = await start({
      trustDomain: 'cluster.local',
      trustDomainAliases: ['old.local'],
      allowedNamespaces: [],
      allowedIdentities: [ISTIOD, 'spiffe://cluster.local/ns/tools/sa/mcp-debug'],
    });
    try {
      assert.equal(await tlsCall(port, 'spiffe://cluster.local/ns/tools/sa/mcp-debug'), 'answered');
      assert.equal(await tlsCall(port, 'spiffe://old.local/ns/istio-system/sa/istiod'), 'answered');
      assert.equal(await tlsCall(port, 'spiffe://cluster.local/ns/tools/sa/other'), 'PERMISSION_DENIED');
    } finally {
      await server.stop();
    }
  });

  it('serves the project MCP client presenting an allowed certificate, verified with the mesh root', async () => {
    const { server, port } = await start();
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const c = meshClient([ISTIOD]);
    const client = new McpClient(
      {
        address: `127.0.0.1:${port}`,
        tls: true,
        rootCertFile: certs.caFile,
        serverName: 'localhost',
        apiVersion: 'v1',
        revision: '',
        node: { podName: 'aeraki-0', namespace: 'istio-system', podIp: '10.0.0.2' },
        clientIdentity: () => ({ cert: Buffer.from(c.cert), key: Buffer.from(c.key) }),
      },
      { store, logger: silentLogger },
    );
    try {
      client.start();
      await client.whenSynced();
      assert.deepEqual(
        store.list('ServiceEntry').map((o) => o.metadata.name),
        ['zk-org-apache-dubbo-samples-demoservice'],
      );
    } finally {
      await client.stop();
      await server.stop();
    }
  });

  it('--mcp-server-insecure: plaintext, logged at warn at start', async () => {
    const logger = recordingLogger();
    const server = new ServiceEntryMcpServer({ host: '127.0.0.1', port: 0, logger, tls: INSECURE });
    server.update([]);
    const port = await server.start();
    try {
      assert.equal(await tlsCall(port, 'plaintext'), 'answered');
      const warn = logger.records.find((r) => r.level === 'warn');
      assert.match(warn?.message ?? '', /WITHOUT TLS \(--mcp-server-insecure\)/);
    } finally {
      await server.stop();
    }
  });
});
