// How the fake istiod answers a debug type (`istio.io/debug...`), by the rules of istiod's generators
// (docs/wire-formats.md): `istio.io/debug/syncz` (statusgen.go, per `fake.syncz.mode`) and `istio.io/debug` with
// one resource name (debuggen.go DebugGen, per `fake.syncz.debug`).
import * as grpc from '@grpc/grpc-js';
import type { AnyBytes } from './encode.ts';
import { encodeDebugSyncz, encodeSyncz, type FakeSyncz } from './syncz.ts';

/** What the fake knows of the asking connection. */
export interface DebugCaller {
  readonly tls: boolean;
  /** The namespace of its verified identity (client certificate or known token); undefined: none. */
  readonly identityNamespace: string | undefined;
  /** Its node's metadata GENERATOR. */
  readonly generator: string | undefined;
}

/** An answer (its resources), the end of the stream, or no answer at all. */
export type DebugOutcome =
  | { readonly answer: readonly AnyBytes[] }
  | { readonly end: { readonly code: grpc.status; readonly details: string } }
  | 'silence';

const end = (code: grpc.status, details: string): DebugOutcome => ({ end: { code, details } });

/** Debug paths DebugGen serves to an identity outside the system namespace (activeNamespaceDebuggers). */
const NAMESPACE_DEBUGGERS = new Set(['config_dump', 'ndsz', 'edsz']);

/**
 * `istio.io/debug/syncz`: `restricted` answers only over TLS to an authenticated caller, and a caller outside the
 * root namespace sees only its own namespace's proxies; other modes as FakeSyncz says. A node naming
 * `GENERATOR: api` is answered by istiod's MCP generator (ads.go findGenerator tries it first): an empty list.
 */
export function answerDebug(
  syncz: FakeSyncz,
  caller: DebugCaller,
  typeUrl: string,
  names: readonly string[],
): DebugOutcome {
  const { mode, proxies, rootNamespace } = syncz;
  if (caller.generator === 'api') return { answer: [] };
  if (typeUrl === 'istio.io/debug') return debugGen(syncz, caller, names);
  // An istiod without a generator for the type sends nothing (ads.go pushXds: no generator, no response).
  if (typeUrl !== 'istio.io/debug/syncz' || mode === 'unknown') return 'silence';
  if (mode === 'refuse') return end(grpc.status.PERMISSION_DENIED, 'debug info is not available');
  // statusgen.go debugSyncz checks neither the caller nor its port: every proxy, to anyone.
  if (mode !== 'restricted') return { answer: encodeSyncz(proxies, mode) };
  if (!caller.tls || caller.identityNamespace === undefined) {
    return end(grpc.status.UNAUTHENTICATED, 'authentication required');
  }
  const visible =
    caller.identityNamespace === rootNamespace
      ? proxies
      : proxies.filter((p) => p.namespace === caller.identityNamespace);
  return { answer: encodeSyncz(visible, 'current') };
}

/**
 * `istio.io/debug` as debuggen.go DebugGen.Generate (newest) answers it: a verified identity is required; exactly
 * one resource name; outside the system namespace only config_dump, ndsz and edsz. Its errors end the stream
 * (the generator's plain error is the stream's: gRPC UNKNOWN). The answer: istiod's HTTP handler output for
 * `/debug/<name>` as one Any of type_url `istio.io/debug` (a path it does not serve: "404 page not found").
 */
function debugGen(syncz: FakeSyncz, caller: DebugCaller, names: readonly string[]): DebugOutcome {
  const { debug, proxies, rootNamespace } = syncz;
  if (debug === 'absent') return 'silence';
  if (!caller.tls || caller.identityNamespace === undefined) {
    return end(grpc.status.UNKNOWN, 'authentication required');
  }
  if (names.length !== 1) {
    return end(
      grpc.status.UNKNOWN,
      names.length === 0 ? 'debug type is required' : 'only one debug request is allowed',
    );
  }
  const path = names[0]!.split('?')[0]!;
  if (caller.identityNamespace !== rootNamespace && !NAMESPACE_DEBUGGERS.has(path)) {
    return end(
      grpc.status.UNKNOWN,
      `the debug info is not available for current identity: "ns/${caller.identityNamespace}"`,
    );
  }
  if (path === 'syncz') return { answer: encodeDebugSyncz(proxies, debug) };
  return { answer: [{ type_url: 'istio.io/debug', value: Buffer.from('404 page not found\n') }] };
}
