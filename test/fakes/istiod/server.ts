// An in-process istiod that answers MCP-over-xDS like its `api` generator (pilot/pkg/networking/apigen): SotW
// ADS, per-type full-state responses of MCP Resources, a fresh nonce per response, ACK/NACK tracking by nonce
// (pilot/pkg/xds/ads.go shouldRespond), pushes of every watched type on change (or of the changed kinds only:
// pushScope). Each stream sends as istiod does (writer.ts): one response in flight, respecting gRPC flow control,
// later pushes of a waiting type merged into it. Fault controls below.
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { adsServiceDefinition } from '../../../src/registry/mcp/service.ts';
import { loadMcpProtos, type McpProtos } from '../../../src/controller/mcp/protos.ts';
import type { IstioConfig } from '../../../src/model/objects.ts';
import { FakeConfig } from './config.ts';
import type { AnyBytes, FakeResource } from './encode.ts';
import { answerDebug } from './debug.ts';
import { StreamWriter } from './writer.ts';
import { namespaceOfSpiffe, newFakeSyncz, type FakeSyncz } from './syncz.ts';
import type {
  FakeIstiodOptions,
  PushScope,
  RecordedRequest,
  RecordedStream,
  Req,
  RequestKind,
  SentResponse,
  ServedVersions,
} from './types.ts';

export type {
  FakeIstiodOptions,
  RecordedRequest,
  RecordedStream,
  RequestKind,
  SentResponse,
} from './types.ts';

interface StreamState {
  readonly id: number;
  readonly call: grpc.ServerDuplexStream<Req, Buffer>;
  readonly lastNonce: Map<string, string>;
  nodeSeen: boolean;
  /** The first node's metadata GENERATOR (istiod binds the connection's generator to it). */
  generator: string | undefined;
  /** TLS connection; the caller's identity namespace (client certificate URI SAN or a known bearer token). */
  readonly tls: boolean;
  readonly identityNamespace: string | undefined;
  /** The stream's way out: one response in flight, pushes merged per type URL while they wait. */
  readonly writer: StreamWriter;
}

export class FakeIstiod extends EventEmitter {
  readonly protos: McpProtos = loadMcpProtos();
  readonly requests: RecordedRequest[] = [];
  /** Every config answer as it was sent (pushes merged while waiting are one answer). */
  readonly sent: SentResponse[] = [];
  readonly streams: RecordedStream[] = [];
  /** Size in bytes of the largest response sent. */
  largestResponse = 0;
  /** Versions holding config; change at any time (takes effect on the next response). */
  serve: ServedVersions;
  requireToken: string | undefined;
  /** What a config change pushes (see FakeIstiodOptions.pushScope). */
  pushScope: PushScope;
  /** Delay before each response, ms. */
  delayMs = 0;
  /** Refuse this many new streams with UNAVAILABLE (Infinity: until reset). */
  refuseStreams = 0;
  /** During the next push, close each stream with UNAVAILABLE after this many responses. */
  dropAfterResponses: number | undefined;
  private readonly server = new grpc.Server();
  readonly config: FakeConfig = new FakeConfig(this.protos);
  /** What `istio.io/debug/syncz` answers (syncz.ts): shape, access rule, the connected proxies. */
  readonly syncz: FakeSyncz = newFakeSyncz();
  private readonly live = new Map<number, StreamState>();
  private nextStream = 1;
  private pushVersion = 0;
  private nonceCounter = 0;
  port = 0;

  /** Serving TLS (istiod's secure port): debug types are answered only here. */
  private readonly tls: boolean;

  constructor(options: FakeIstiodOptions = {}) {
    super();
    this.tls = options.tls !== undefined;
    this.serve = options.serve ?? 'v1';
    this.requireToken = options.requireToken;
    this.pushScope = options.pushScope ?? 'all';
    this.server.addService(adsServiceDefinition<Req>(this.protos), {
      StreamAggregatedResources: (call: grpc.ServerDuplexStream<Req, Buffer>) => this.onStream(call),
    });
  }

  static async start(options: FakeIstiodOptions = {}): Promise<FakeIstiod> {
    const f = new FakeIstiod(options);
    const creds = options.tls
      ? grpc.ServerCredentials.createSsl(
          options.clientCa ?? null,
          [{ private_key: options.tls.key, cert_chain: options.tls.cert }],
          options.clientCa !== undefined,
        )
      : grpc.ServerCredentials.createInsecure();
    f.port = await new Promise<number>((resolve, reject) =>
      f.server.bindAsync('127.0.0.1:0', creds, (err, port) => (err ? reject(err) : resolve(port))),
    );
    return f;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const s of this.live.values()) s.call.end();
    this.server.forceShutdown();
    await Promise.resolve();
  }

  // ------------------------------------------------------------------ config

  /** Adds or replaces the given configs, then pushes (unless `push: false`). */
  set(objects: readonly (IstioConfig | FakeResource)[], opts: { push?: boolean } = {}): void {
    for (const o of objects) this.config.put(o);
    if (opts.push !== false) this.pushChanged(objects.map((o) => o.kind));
  }

  /** Adds or replaces one config, then pushes (unless `push: false`). */
  upsert(obj: IstioConfig | FakeResource, opts: { push?: boolean } = {}): void {
    this.set([obj], opts);
  }

  remove(kind: string, namespace: string, name: string, opts: { push?: boolean } = {}): void {
    this.config.remove(kind, namespace, name);
    if (opts.push !== false) this.pushChanged([kind]);
  }

  /** Serves extra resources as given (undecodable ones, wrong body types) among the kind's answer. */
  setRaw(kind: string, resources: readonly AnyBytes[]): void {
    this.config.setRaw(kind, resources);
  }

  /** The push after a config change of `kinds`: every watched type, or those kinds' types (pushScope). */
  private pushChanged(kinds: readonly string[]): void {
    this.push(this.pushScope === 'kind' ? new Set(kinds) : undefined);
  }

  /**
   * A full push: every watched type of every stream (or only the type URLs of `kinds`) gets a new full answer.
   */
  push(kinds?: ReadonlySet<string>): void {
    this.pushVersion++;
    const drop = this.dropAfterResponses;
    this.dropAfterResponses = undefined;
    for (const s of this.live.values()) {
      let sent = 0;
      for (const url of s.lastNonce.keys()) {
        if (kinds && !kinds.has(url.slice(url.lastIndexOf('/') + 1))) continue;
        if (drop !== undefined && sent >= drop) {
          // After the responses before it have gone out, as they would from istiod.
          this.live.delete(s.id);
          s.writer.endAfterWrites(() => this.endStream(s, grpc.status.UNAVAILABLE, 'fake: dropped mid-push'));
          break;
        }
        s.writer.pushType(url);
        sent++;
      }
    }
  }

  /** Closes every open stream with UNAVAILABLE (an istiod restart, a load balancer reset). */
  dropStreams(): void {
    for (const s of [...this.live.values()]) this.endStream(s, grpc.status.UNAVAILABLE, 'fake: stream reset');
  }

  // ------------------------------------------------------------------ streams

  private onStream(call: grpc.ServerDuplexStream<Req, Buffer>): void {
    const id = this.nextStream++;
    const auth = call.metadata.get('authorization')[0];
    const authContext = call.getAuthContext();
    const writer = new StreamWriter(
      call,
      (url) => this.respond(s, url),
      () => this.delayMs,
      () => this.emit('change'),
    );
    const rec: RecordedStream = {
      id,
      authorization: typeof auth === 'string' ? auth : undefined,
      peer: /URI:([^,]+)/.exec(authContext.sslPeerCertificate?.subjectaltname ?? '')?.[1],
      open: true,
      get responses(): number {
        return writer.written;
      },
    };
    this.streams.push(rec);
    const bearer = rec.authorization?.startsWith('Bearer ') ? rec.authorization.slice(7) : undefined;
    const s: StreamState = {
      writer,
      id,
      call,
      lastNonce: new Map(),
      nodeSeen: false,
      generator: undefined,
      tls: this.tls,
      identityNamespace:
        namespaceOfSpiffe(rec.peer) ?? (bearer !== undefined ? this.syncz.tokens.get(bearer) : undefined),
    };
    call.on('error', () => {});
    call.on('close', () => this.closed(s, rec));
    call.on('end', () => this.closed(s, rec));
    this.emit('stream', rec);
    if (this.refuseStreams > 0) {
      this.refuseStreams--;
      this.endStream(s, grpc.status.UNAVAILABLE, 'fake: connection refused');
      return;
    }
    if (this.requireToken !== undefined && rec.authorization !== `Bearer ${this.requireToken}`) {
      this.endStream(s, grpc.status.UNAUTHENTICATED, 'authentication failure');
      return;
    }
    this.live.set(id, s);
    call.on('data', (req: Req) => this.onRequest(s, req));
  }

  private closed(s: StreamState, rec: RecordedStream): void {
    if (!rec.open) return;
    rec.open = false;
    s.writer.close();
    this.live.delete(s.id);
    this.emit('change');
  }

  private endStream(s: StreamState, code: grpc.status, details: string): void {
    this.live.delete(s.id);
    s.writer.close();
    s.call.emit('error', { code, details });
  }

  private onRequest(s: StreamState, req: Req): void {
    const typeUrl = req.typeUrl ?? '';
    if (!s.nodeSeen) {
      if (!req.node?.id) return this.endStream(s, grpc.status.INVALID_ARGUMENT, 'missing node information');
      const parts = req.node.id.split('~');
      if (parts.length !== 4 || parts[0] !== 'sidecar') {
        return this.endStream(s, grpc.status.INVALID_ARGUMENT, `invalid node id ${req.node.id}`);
      }
      // Config types go to the api (MCP) generator with or without GENERATOR (ads.go findGenerator's fallback).
      s.generator = req.node.metadata?.fields?.['GENERATOR']?.stringValue || undefined;
      s.nodeSeen = true;
    }
    const nonce = req.responseNonce ?? '';
    // ads.go processRequest: strings.HasPrefix(req.TypeUrl, "istio.io/debug") — answered once, no watch.
    if (typeUrl.startsWith('istio.io/debug')) return this.onDebugRequest(s, req, typeUrl, nonce);
    let kind: RequestKind;
    if (req.errorDetail && (req.errorDetail.code ?? 0) !== 0) kind = 'nack';
    else if (nonce === '' || !s.lastNonce.has(typeUrl)) kind = 'init';
    else if (s.lastNonce.get(typeUrl) !== nonce) kind = 'stale';
    else kind = 'ack';
    const md = req.node?.metadata?.fields;
    this.requests.push({
      stream: s.id,
      kind,
      typeUrl,
      versionInfo: req.versionInfo ?? '',
      responseNonce: nonce,
      nodeId: req.node?.id || undefined,
      nodeMetadata: md
        ? Object.fromEntries(Object.entries(md).map(([k, v]) => [k, v.stringValue ?? '']))
        : undefined,
      errorMessage: req.errorDetail?.message || undefined,
    });
    if (kind === 'init') {
      s.lastNonce.set(typeUrl, '');
      s.writer.pushType(typeUrl);
    }
    this.emit('change');
  }

  /** A debug type: answered once per request (debug.ts), no watch kept (an ACK would be one more request). */
  private onDebugRequest(s: StreamState, req: Req, typeUrl: string, nonce: string): void {
    this.requests.push({
      stream: s.id,
      kind: 'debug',
      typeUrl,
      versionInfo: req.versionInfo ?? '',
      responseNonce: nonce,
      nodeId: req.node?.id || undefined,
      nodeMetadata: undefined,
      errorMessage: req.errorDetail?.message || undefined,
    });
    this.emit('change');
    const out = answerDebug(this.syncz, s, typeUrl, req.resourceNames ?? []);
    if (out === 'silence') return;
    if ('end' in out) return this.endStream(s, out.end.code, out.end.details);
    this.respondWith(s, typeUrl, out.answer);
  }

  private respondWith(s: StreamState, typeUrl: string, resources: readonly AnyBytes[]): void {
    const out = Buffer.from(
      this.protos.DiscoveryResponse.encode(
        this.protos.DiscoveryResponse.fromObject({
          versionInfo: `v${this.pushVersion}`,
          typeUrl,
          nonce: `${++this.nonceCounter}-${randomBytes(4).toString('hex')}`,
          resources,
        }),
      ).finish(),
    );
    s.writer.pushRaw(out);
  }

  /** The type URL's full answer now, with a fresh nonce (sent by the stream's writer). */
  private respond(s: StreamState, typeUrl: string): Buffer {
    const nonce = `${++this.nonceCounter}-${randomBytes(4).toString('hex')}`;
    s.lastNonce.set(typeUrl, nonce);
    const head = this.protos.DiscoveryResponse.encode(
      this.protos.DiscoveryResponse.fromObject({
        versionInfo: `v${this.pushVersion}`,
        typeUrl,
        nonce,
        controlPlane: { identifier: '{"Component":"istiod","ID":"fake"}' },
      }),
    ).finish();
    // Fields may come in any order: the kind's resources (field 2, encoded once per change) follow the head.
    const out = Buffer.concat([head, this.config.encodedFor(typeUrl, this.serve)]);
    this.largestResponse = Math.max(this.largestResponse, out.length);
    this.sent.push({ stream: s.id, typeUrl, versionInfo: `v${this.pushVersion}`, nonce });
    return out;
  }

  /** Resolves when `predicate` holds (checked now and after every request or stream change). */
  waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!predicate()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`fake istiod: timed out waiting for ${what}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.off('change', check);
        this.off('stream', check);
      };
      this.on('change', check);
      this.on('stream', check);
    });
  }

  /** True when every open stream has sent all its pushes and had the last response of every watched type ACKed or NACKed. */
  allAnswered(): boolean {
    for (const s of this.live.values()) {
      if (!s.writer.idle) return false;
      for (const [url, nonce] of s.lastNonce) {
        if (
          nonce === '' ||
          !this.requests.some((r) => r.stream === s.id && r.typeUrl === url && r.responseNonce === nonce)
        )
          return false;
      }
    }
    return true;
  }

  /** Requests of one kind, optionally for one type URL. */
  filter(kind: RequestKind, typeUrl?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === kind && (typeUrl === undefined || r.typeUrl === typeUrl));
  }
}
