// Shapes shared by the fake istiod's files.
export type ServedVersions = 'v1' | 'v1alpha3' | 'both';
export type PushScope = 'all' | 'kind';

export interface FakeIstiodOptions {
  /** Which type URL version holds the config (istiod >= 1.24: v1); the other is answered with an empty list. */
  readonly serve?: ServedVersions;
  /**
   * What a config change pushes: `all` (default, spec/wire-formats.md §1.6 step 5) re-sends every watched type
   * URL; `kind` re-sends only the changed kinds' type URLs (each still the full set of that type).
   */
  readonly pushScope?: PushScope;
  /** Require `authorization: Bearer <token>` (ENABLE_XDS_API_GENERATOR_AUTH); else UNAUTHENTICATED. */
  readonly requireToken?: string;
  /** Serve TLS with this key pair instead of plaintext. */
  readonly tls?: { readonly key: Buffer; readonly cert: Buffer };
  /** With `tls`: require a client certificate chaining to this root (istiod verifies one when given). */
  readonly clientCa?: Buffer;
}

/** `debug`: a request of a debug type (istio.io/debug/...), answered once, never watched. */
export type RequestKind = 'init' | 'ack' | 'nack' | 'stale' | 'debug';

export interface RecordedRequest {
  readonly stream: number;
  readonly kind: RequestKind;
  readonly typeUrl: string;
  readonly versionInfo: string;
  readonly responseNonce: string;
  readonly nodeId: string | undefined;
  readonly nodeMetadata: Readonly<Record<string, string>> | undefined;
  readonly errorMessage: string | undefined;
}

/** A config answer sent on a stream (debug answers are not recorded). */
export interface SentResponse {
  readonly stream: number;
  readonly typeUrl: string;
  readonly versionInfo: string;
  readonly nonce: string;
}

export interface RecordedStream {
  readonly id: number;
  readonly authorization: string | undefined;
  /** The URI SAN of the client certificate (TLS with a client certificate), else undefined. */
  readonly peer: string | undefined;
  open: boolean;
  /** Responses written to the stream (handed to gRPC; a stream that does not read holds at most one in flight). */
  readonly responses: number;
}

export interface Req {
  typeUrl?: string;
  versionInfo?: string;
  responseNonce?: string;
  resourceNames?: string[];
  node?: { id?: string; metadata?: { fields?: Record<string, { stringValue?: string }> } };
  errorDetail?: { code?: number; message?: string };
}
