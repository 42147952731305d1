/**
 * The messages between the MCP client (receiver.ts, main thread) and its receive worker (receive-worker.ts). Plain
 * data: they cross the thread boundary by structured clone (the response bytes by transfer).
 */
import type { AnyMessage } from './decode.ts';
import type { ReadResult } from './reader.ts';
import type { McpTypeUrl } from './type-urls.ts';
import type { AdsOpenSpec, DiscoveryRequestObject } from './transport.ts';

/** The worker's `workerData`. */
export interface ReceiveInit {
  /** `--revision` (decode.ts inRevision). */
  readonly revision: string;
  /** The Istio type URLs read into McpState. */
  readonly urls: readonly McpTypeUrl[];
  /** Type URLs whose resources go back as they came (ambient.ts reads them in the main thread: a few objects). */
  readonly passUrls: readonly string[];
}

/** An encoded DiscoveryResponse of stream generation `gen`; ids increase by one per response. */
export interface ResponseMessage {
  readonly type: 'response';
  readonly id: number;
  readonly gen: number;
  readonly bytes: Uint8Array;
}

/**
 * A new stream generation: responses of older ones still waiting are dropped, and the type URLs of responses read
 * after `appliedThrough` (the last id the main thread took; it drops the rest) are forgotten, so the reader holds
 * exactly what the main thread applied.
 */
export interface GenerationMessage {
  readonly type: 'generation';
  readonly gen: number;
  readonly appliedThrough: number;
}

/**
 * Open the ADS stream of generation `gen` in the worker: its responses are read there as they arrive (ids go on
 * from the last one the worker saw), never crossing to the main thread as bytes. A stream of an older generation
 * still open is cancelled.
 */
export interface OpenMessage {
  readonly type: 'open';
  readonly gen: number;
  readonly spec: AdsOpenSpec;
}

/** A DiscoveryRequest (initial request, ACK, NACK) for the worker's stream of generation `gen`. */
export interface WriteMessage {
  readonly type: 'write';
  readonly gen: number;
  readonly request: DiscoveryRequestObject;
}

/** Cancel the worker's stream of generation `gen` (nothing if it is not the open one). */
export interface CancelMessage {
  readonly type: 'cancel';
  readonly gen: number;
}

export type ToWorker = ResponseMessage | GenerationMessage | OpenMessage | WriteMessage | CancelMessage;

interface Answered {
  readonly id: number;
  readonly gen: number;
}

/** A response read: `read` for an Istio type URL, `resources` for a passed one, neither for one not subscribed. */
export interface ReadMessage extends Answered {
  readonly type: 'read';
  readonly typeUrl: string;
  readonly version: string;
  readonly nonce: string;
  readonly read?: ReadResult;
  readonly resources?: readonly AnyMessage[];
  /** Reading failed (a bug, not bad input: bad resources are reported in `read`). */
  readonly error?: string;
}

/** A response that a newer one of its type URL replaced before it was read (neither applied nor answered). */
export interface SupersededMessage extends Answered {
  readonly type: 'superseded';
  readonly typeUrl: string;
}

/** Bytes that are not a DiscoveryResponse (as the gRPC deserializer failing: the stream is given up). */
export interface UndecodableMessage extends Answered {
  readonly type: 'undecodable';
  readonly message: string;
}

/** The worker's stream of generation `gen` ended (its gRPC status: istiod closed it, or it failed). */
export interface StreamEndMessage {
  readonly type: 'stream-end';
  readonly gen: number;
  readonly code: number;
  readonly details: string;
}

/** What the worker says about a response (each carries the response's id). */
export type FromWorker = ReadMessage | SupersededMessage | UndecodableMessage;

/** Everything the worker posts. */
export type WorkerPost = FromWorker | StreamEndMessage;
