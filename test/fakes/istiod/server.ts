// An in-process istiod that answers MCP-over-xDS like its `api` generator (pilot/pkg/networking/apigen): SotW
// ADS, per-type full-state responses of MCP Resources, a fresh nonce per response, ACK/NACK tracking by nonce
// (pilot/pkg/xds/ads.go shouldRespond), pushes of every watched type on change (or of the changed kinds only:
// pushScope). Fault controls below.
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { adsServiceDefinition } from '../../../src/registry/mcp/service.ts';
import { loadMcpProtos, type McpProtos } from '../../../src/controller/mcp/protos.ts';
import type { IstioConfig } from '../../../src/model/objects.ts';
import { FakeConfig } from './config.ts';
import type { AnyBytes, FakeResource } from './encode.ts';
import { encodeDebugSyncz, encodeSyncz, namespaceOfSpiffe, newFakeSyncz, type FakeSyncz } from './syncz.ts';
import type {
  FakeIstiodOptions,
  PushScope,
  RecordedRequest,
  RecordedStream,
  Req,
  RequestKind,
  ServedVersions,
} from './types.ts';

export type { FakeIstiodOptions, RecordedRequest, RecordedStream, RequestKind } from './types.ts';

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
}

export class FakeIstiod extends EventEmitter {
  readonly protos: McpProtos = loadMcpProtos();
  readonly requests: RecordedRequest[] = [];
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
          this.endStream(s, grpc.status.UNAVAILABLE, 'fake: dropped mid-push');
          break;
        }
        this.respond(s, url);
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
    const rec: RecordedStream = {
      id,
      authorization: typeof auth === 'string' ? auth : undefined,
      peer: /URI:([^,]+)/.exec(authContext.sslPeerCertificate?.subjectaltname ?? '')?.[1],
      open: true,
    };
    this.streams.push(rec);
    const bearer = rec.authorization?.startsWith('Bearer ') ? rec.authorization.slice(7) : undefined;
    const s: StreamState = {
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
    this.live.delete(s.id);
    this.emit('change');
  }

  private endStream(s: StreamState, code: grpc.status, details: string): void {
    this.live.delete(s.id);
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
      this.respond(s, typeUrl);
    }
    this.emit('change');
  }

  /**
   * A debug type: answered once per request, no watch kept (an ACK would be answered as one more request).
   * `restricted`: only over TLS to an authenticated caller, and a caller outside the root namespace sees only its
   * own namespace's proxies; a refusal ends the whole stream.
   */
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
    const { mode, proxies, rootNamespace } = this.syncz;
    // A node naming a generator gets every type from it first (ads.go findGenerator): the api generator knows no
    // istio.io/debug/syncz config and answers an empty list.
    if (s.generator === 'api') return this.respondWith(s, typeUrl, []);
    if (typeUrl === 'istio.io/debug') return this.onDebugGen(s, req.resourceNames ?? []);
    // An istiod without a generator for the type sends nothing (ads.go pushXds: no generator, no response).
    if (typeUrl !== 'istio.io/debug/syncz' || mode === 'unknown') return;
    if (mode === 'refuse') {
      return this.endStream(s, grpc.status.PERMISSION_DENIED, 'debug info is not available');
    }
    if (mode === 'older') return this.respondWith(s, typeUrl, encodeSyncz(proxies, 'older'));
    if (mode === 'newest') return this.respondWith(s, typeUrl, encodeSyncz(proxies, 'newest'));
    // statusgen.go debugSyncz checks neither the caller nor its port: every proxy, to anyone.
    if (mode === 'current') return this.respondWith(s, typeUrl, encodeSyncz(proxies, 'current'));
    if (!s.tls || s.identityNamespace === undefined) {
      return this.endStream(s, grpc.status.UNAUTHENTICATED, 'authentication required');
    }
    const visible =
      s.identityNamespace === rootNamespace
        ? proxies
        : proxies.filter((p) => p.namespace === s.identityNamespace);
    this.respondWith(s, typeUrl, encodeSyncz(visible, 'current'));
  }

  /**
   * `istio.io/debug` as debuggen.go DebugGen.Generate answers it (newest: a verified identity is required; one
   * resource name; outside the system namespace only config_dump, ndsz and edsz). Its errors end the stream
   * (the generator's error is the stream's: gRPC UNKNOWN). The answer: istiod's HTTP handler output for
   * `/debug/<name>` as one Any of type_url `istio.io/debug` (a path it does not serve: "404 page not found").
   */
  private onDebugGen(s: StreamState, names: readonly string[]): void {
    const { debug, proxies, rootNamespace } = this.syncz;
    if (debug === 'absent') return;
    if (!s.tls || s.identityNamespace === undefined) {
      return this.endStream(s, grpc.status.UNKNOWN, 'authentication required');
    }
    if (names.length !== 1) {
      const why = names.length === 0 ? 'debug type is required' : 'only one debug request is allowed';
      return this.endStream(s, grpc.status.UNKNOWN, why);
    }
    const path = names[0]!.split('?')[0]!;
    if (s.identityNamespace !== rootNamespace && !['config_dump', 'ndsz', 'edsz'].includes(path)) {
      return this.endStream(
        s,
        grpc.status.UNKNOWN,
        `the debug info is not available for current identity: "ns/${s.identityNamespace}"`,
      );
    }
    const resources =
      path === 'syncz'
        ? encodeDebugSyncz(proxies, debug)
        : [{ type_url: 'istio.io/debug', value: Buffer.from('404 page not found\n') }];
    this.respondWith(s, 'istio.io/debug', resources);
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
    const write = (): void => {
      if (this.live.has(s.id)) s.call.write(out);
    };
    if (this.delayMs > 0) setTimeout(write, this.delayMs);
    else write();
  }

  private respond(s: StreamState, typeUrl: string): void {
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
    const write = (): void => {
      if (this.live.has(s.id)) s.call.write(out);
    };
    if (this.delayMs > 0) setTimeout(write, this.delayMs);
    else write();
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

  /** True when every open stream has ACKed or NACKed the last response of every watched type. */
  allAnswered(): boolean {
    for (const s of this.live.values()) {
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
