/**
 * The MCP receive worker (a node:worker_threads entry; receiver.ts starts it): decodes each DiscoveryResponse,
 * reads it against the last answer of its type URL (AnswerReader: byte comparison per resource, decode of the
 * changed ones) and posts back only what changed. Holds the bytes of every resource; the main thread holds the
 * objects. Responses wait in a LatestQueue: one read while others came is superseded by the newest of its type URL.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parseConfigObject } from '../../model/parse/parse.ts';
import { LatestQueue } from './latest-queue.ts';
import { loadMcpProtos } from './protos.ts';
import { AnswerReader } from './reader.ts';
import type { FromWorker, ReceiveInit, ResponseMessage, ToWorker } from './receive-protocol.ts';
import type { AnyMessage } from './decode.ts';
import type { DiscoveryResponseMessage } from './transport.ts';
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

const post = (m: FromWorker) => port.postMessage(m);

const queue = new LatestQueue<ResponseMessage>(read, (typeUrl, m) =>
  post({ type: 'superseded', id: m.id, gen: m.gen, typeUrl }),
);

port.on('message', (m: ToWorker) => {
  if (m.type === 'response') queue.push(peekTypeUrl(m.bytes), m);
  else newGeneration(m.gen, m.appliedThrough);
});

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
