// Test wiring for the syncz client: a fake istiod answering istio.io/debug/syncz over TLS, and ADS streams to it
// built by the MCP client's transport (a real grpc-js client), authenticated by a client certificate or token.
import { AdsTransport, type AdsStream } from '../../src/controller/mcp/transport.ts';
import { synczNode } from '../../src/app/proxy-status.ts';
import { loadMcpProtos } from '../../src/controller/mcp/protos.ts';
import { FakeIstiod } from '../fakes/istiod/server.ts';
import { meshClient, testCa } from '../fakes/test-ca.ts';
import { TEST_NODE } from '../fakes/istiod/harness.ts';

/** The syncz stream's node (no GENERATOR: istiod would route syncz to its MCP generator). */
export const NODE = synczNode(TEST_NODE);
export const ROOT_IDENTITY = 'spiffe://cluster.local/ns/istio-system/sa/aeraki';

/** A fake istiod on TLS; with `clientCerts` it asks for (and requires) a client certificate of the mesh CA. */
export async function tlsIstiod(clientCerts = true): Promise<FakeIstiod> {
  const mesh = testCa();
  return FakeIstiod.start({
    tls: { key: Buffer.from(mesh.serverKey), cert: Buffer.from(mesh.serverCert) },
    ...(clientCerts ? { clientCa: Buffer.from(mesh.ca) } : {}),
  });
}

/** How a test caller authenticates: a client certificate with this SPIFFE URI, a bearer token, or nothing. */
export interface Caller {
  readonly spiffe?: string;
  readonly token?: string;
  readonly tls?: boolean;
}

export function transportFor(fake: FakeIstiod, caller: Caller): AdsTransport {
  const files: Record<string, Buffer> = {
    root: Buffer.from(testCa().ca),
    token: Buffer.from(caller.token ?? ''),
  };
  const pair = caller.spiffe ? meshClient([caller.spiffe]) : undefined;
  return new AdsTransport(
    {
      address: `localhost:${fake.port}`,
      tls: caller.tls ?? true,
      rootCertFile: 'root',
      ...(caller.token ? { tokenFile: 'token' } : {}),
      clientIdentity: pair ? () => ({ cert: Buffer.from(pair.cert), key: Buffer.from(pair.key) }) : undefined,
    },
    loadMcpProtos(),
    (f) => Promise.resolve(files[f] ?? Buffer.alloc(0)),
  );
}

export interface AnswerLike {
  readonly typeUrl?: string;
  readonly resources?: readonly { readonly type_url?: string; readonly value?: Uint8Array }[];
}

export type Outcome =
  { readonly answer: AnswerLike } | { readonly error: { readonly code?: number; readonly details?: string } };

/** Sends one syncz request on `stream` and resolves with the first response or the stream's error. */
export function askOnce(
  stream: AdsStream,
  typeUrl = 'istio.io/debug/syncz',
  node: unknown = NODE,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const onData = (answer: AnswerLike): void => {
      stream.off('data', onData);
      resolve({ answer });
    };
    stream.on('data', onData);
    stream.once('error', (error: { code?: number; details?: string }) => resolve({ error }));
    stream.write({ typeUrl, node, resourceNames: [] });
  });
}
