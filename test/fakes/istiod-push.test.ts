import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { ADS_METHOD, loadMcpProtos } from '../../src/kit/mcp-protos.ts';
import { FakeIstiod } from './istiod/server.ts';
import { se } from './istiod/harness.ts';

const SE = 'networking.istio.io/v1/ServiceEntry';
const NODE = { id: 'sidecar~10.0.0.9~aeraki.istio-system~istio-system.svc.cluster.local' };
const protos = loadMcpProtos();
/** The default stream window, stated: gRPC flow control is what holds a stream that does not read. */
const CLIENT_OPTIONS = { 'grpc-node.flow_control_window': 65_535, 'grpc.max_receive_message_length': -1 };

interface Answer {
  readonly versionInfo: string;
  readonly nonce: string;
}

/** An ADS stream whose responses are read only once `read` is called (until then gRPC flow control holds them). */
function openStream(fake: FakeIstiod, client: grpc.Client) {
  const call = client.makeBidiStreamRequest(
    ADS_METHOD,
    (r: Record<string, unknown>) =>
      Buffer.from(protos.DiscoveryRequest.encode(protos.DiscoveryRequest.fromObject(r)).finish()),
    (b: Buffer) => b,
  );
  call.on('error', () => {});
  const answers: Answer[] = [];
  return {
    call,
    answers,
    read(onAnswer: () => void): void {
      call.on('data', (b: Buffer) => {
        const r = protos.DiscoveryResponse.toObject(protos.DiscoveryResponse.decode(b)) as Answer;
        answers.push({ versionInfo: r.versionInfo, nonce: r.nonce });
        onAnswer();
      });
    },
    record: () => fake.streams[0],
  };
}

describe('fake istiod pushes as istiod does under a slow client', () => {
  const closers: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const c of closers.reverse()) await c();
  });

  it('keeps one pending push for a stream that does not read, and sends it the newest state', async () => {
    const fake = await FakeIstiod.start({ serve: 'v1' });
    closers.push(() => fake.close());
    // About 2 MB per answer: far more than a stream's flow-control window (64 kB).
    fake.set(
      Array.from({ length: 8000 }, (_, i) => se(`svc-${i}`)),
      { push: false },
    );
    const client = new grpc.Client(fake.address, grpc.credentials.createInsecure(), CLIENT_OPTIONS);
    closers.push(() => client.close());
    const s = openStream(fake, client);
    s.call.write({ node: NODE, typeUrl: SE });
    await fake.waitFor(() => s.record()?.responses === 1, 'the first answer written');
    for (let i = 1; i <= 20; i++) {
      fake.push();
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(s.record()?.responses, 1, 'the first answer is still in flight: the pushes wait');
    assert.equal(fake.allAnswered(), false);

    let answered = (): void => {};
    const two = new Promise<void>((resolve) => (answered = () => s.answers.length === 2 && resolve()));
    s.read(answered);
    await two;
    assert.deepEqual(
      s.answers.map((a) => a.versionInfo),
      ['v0', 'v20'],
      'the twenty pushes made while one was in flight merged into one answer of the newest state',
    );
    s.call.write({ node: NODE, typeUrl: SE, versionInfo: 'v20', responseNonce: s.answers[1]?.nonce });
    await fake.waitFor(() => fake.allAnswered(), 'the newest answer acknowledged, nothing waiting');
    assert.equal(s.record()?.responses, 2);
    assert.equal(s.answers.length, 2);
    assert.deepEqual(
      fake.requests.map((r) => r.kind),
      ['init', 'ack'],
      'nothing else',
    );
  });

  it('sends each push to a stream that keeps up', async () => {
    const fake = await FakeIstiod.start({ serve: 'v1' });
    closers.push(() => fake.close());
    fake.set([se('a')], { push: false });
    const client = new grpc.Client(fake.address, grpc.credentials.createInsecure(), CLIENT_OPTIONS);
    closers.push(() => client.close());
    const s = openStream(fake, client);
    s.read(() => {
      const last = s.answers.at(-1);
      s.call.write({ node: NODE, typeUrl: SE, versionInfo: last?.versionInfo, responseNonce: last?.nonce });
    });
    s.call.write({ node: NODE, typeUrl: SE });
    for (let i = 1; i <= 3; i++) {
      await fake.waitFor(() => fake.filter('ack').length === i, `ack ${i}`);
      fake.upsert(se('a', String(i + 1)));
    }
    await fake.waitFor(() => fake.filter('ack').length === 4, 'ack 4');
    assert.deepEqual(
      s.answers.map((a) => a.versionInfo),
      ['v0', 'v1', 'v2', 'v3'],
    );
  });
});
