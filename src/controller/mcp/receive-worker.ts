/**
 * The MCP receive worker (a node:worker_threads entry; receiver.ts starts it): owns the ADS stream to istiod (the
 * gRPC channel, its receive buffers and the gathering of each answer live in this thread's heap, not the main
 * thread's: about 10 MB an answer at 10,000 services, several a second), decodes each DiscoveryResponse,
 * reads it against the last answer of its type URL (AnswerReader: byte comparison per resource, decode of the
 * changed ones) and posts back only what changed. Holds the bytes of every resource; the main thread holds the
 * objects. Responses wait in a LatestQueue: one read while others came is superseded by the newest of its type URL.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { StatusObject } from '@grpc/grpc-js';
import { parseConfigObject } from '../../model/parse/parse.ts';
import { LatestQueue } from './latest-queue.ts';
import { loadMcpProtos } from './protos.ts';
import { AnswerReader } from './reader.ts';
import type { OpenMessage, ReceiveInit, ResponseMessage, ToWorker, WorkerPost } from './receive-protocol.ts';
import type { AnyMessage } from './decode.ts';
import { AdsChannel, type DiscoveryResponseMessage, type RawAdsStream } from './transport.ts';
import { Cursor, asBuffer, readString, readTag, skipType } from './wire.ts';

const port = parentPort;
if (!port) throw new Error('receive-worker.ts runs as a worker thread');
const init = workerData as ReceiveInit;
const protos = loadMcpProtos();
const reader = new AnswerReader(protos, parseConfigObject, init.revision);
const byUrl = new Map(init.urls.map((u) => [u.url, u]));
const passed = new Set(init.passUrls);
/** Per type URL, the id of the last response read. */
const lastRead = new Map<string, number>();
/** The id of the last response seen (posted by the main thread, or read from this thread's stream). */
let lastId = 0;
/** The channel to istiod and the open stream with its generation, once the main thread opened one. */
let channel: AdsChannel | undefined;
let stream: { readonly gen: number; readonly call: RawAdsStream } | undefined;

const post = (m: WorkerPost) => port.postMessage(m);

const queue = new LatestQueue<ResponseMessage>(read, (typeUrl, m) =>
  post({ type: 'superseded', id: m.id, gen: m.gen, typeUrl }),
);

port.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'response':
      lastId = Math.max(lastId, m.id);
      return queue.push(peekTypeUrl(m.bytes), m);
    case 'generation':
      return newGeneration(m.gen, m.appliedThrough);
    case 'open':
      return open(m);
    case 'write':
      if (stream?.gen === m.gen) stream.call.write(m.request);
      return;
    case 'cancel':
      if (stream?.gen === m.gen) cancel();
      return;
  }
});

/** Opens the stream of generation `gen`; its answers are queued here as they arrive, as posted ones are. */
function open(m: OpenMessage): void {
  cancel();
  channel ??= new AdsChannel(protos);
  const call = channel.open(m.spec, (buf) => buf);
  const gen = m.gen;
  stream = { gen, call };
  call.on('data', (bytes: Buffer) => {
    if (stream?.call !== call) return;
    const id = ++lastId;
    queue.push(peekTypeUrl(bytes), { type: 'response', id, gen, bytes });
  });
  call.on('error', () => {}); // the 'status' event below carries the same information
  call.on('status', (s: StatusObject) => {
    if (stream?.call === call) stream = undefined;
    post({ type: 'stream-end', gen, code: s.code, details: s.details });
  });
}

function cancel(): void {
  const open = stream;
  stream = undefined;
  open?.call.cancel();
}

function newGeneration(_gen: number, appliedThrough: number): void {
  queue.clear(); // all of older streams: the main thread would drop them
  for (const [url, id] of lastRead) {
    if (id <= appliedThrough) continue;
    reader.forget(url);
    lastRead.delete(url);
  }
}

function read(m: ResponseMessage): void {
  let resp: DiscoveryResponseMessage;
  try {
    resp = protos.DiscoveryResponse.decode(m.bytes) as DiscoveryResponseMessage;
  } catch (err) {
    post({ type: 'undecodable', id: m.id, gen: m.gen, message: (err as Error).message });
    return;
  }
  const typeUrl = resp.typeUrl ?? '';
  const base = {
    type: 'read',
    id: m.id,
    gen: m.gen,
    typeUrl,
    version: resp.versionInfo ?? '',
    nonce: resp.nonce ?? '',
  } as const;
  const type = byUrl.get(typeUrl);
  const resources = withBytes(resp.resources ?? []);
  if (type) {
    lastRead.set(typeUrl, m.id);
    try {
      post({ ...base, read: reader.read(type, resources) });
    } catch (err) {
      post({ ...base, error: (err as Error).message });
    }
  } else if (passed.has(typeUrl)) {
    // Copies: a view would take the whole response buffer along.
    const copies = resources.map((r) => ({ type_url: r.type_url, value: new Uint8Array(r.value ?? []) }));
    post({ ...base, resources: copies });
  } else post(base);
}

const EMPTY = new Uint8Array();

/** protobufjs gives an Any without a value the bytes default `[]` (an Array): as empty bytes. */
function withBytes(resources: readonly AnyMessage[]): readonly AnyMessage[] {
  if (resources.every((r) => r.value === undefined || r.value instanceof Uint8Array)) return resources;
  return resources.map((r) => (r.value instanceof Uint8Array ? r : { type_url: r.type_url, value: EMPTY }));
}

/**
 * The type_url (field 4) of an encoded DiscoveryResponse, read without decoding the resources (skipped by their
 * length); '' when unreadable (the read then fails on its own). envoy/service/discovery/v3/discovery.proto.
 */
function peekTypeUrl(bytes: Uint8Array): string {
  const buf = asBuffer(bytes);
  const c = new Cursor(buf, 0, buf.length);
  let url = '';
  try {
    while (c.pos < c.end) {
      const tag = readTag(c);
      if (tag === 34) url = readString(c);
      else skipType(c, tag & 7, 0, tag >>> 3);
    }
  } catch {
    return '';
  }
  return url;
}
