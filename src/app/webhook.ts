/**
 * The validating webhook of `aeraki serve` (`--webhook-address`): the WebhookServer with the serving certificate
 * of `--webhook-cert-file`/`--webhook-key-file` (or the development server certificate of `--dev-certs`), and
 * the validation of `aeraki validate` against the live store: an object is checked as if it replaced its
 * namespace/name in the store, and denied for its own parse errors or for generation errors it adds.
 */
import type { ConfigStore } from '../controller/store.ts';
import { DEFAULT_PARSE_OPTIONS } from '../model/parse/parse.ts';
import { validateObjects } from '../model/validate/validate.ts';
import type { DevCertPaths } from '../tools/dev-certs.ts';
import { formatAddress } from '../util/address.ts';
import type { Logger } from '../util/logger.ts';
import { WebhookServer } from '../webhook/server.ts';
import type { HandshakeLimits } from '../util/handshake-guard.ts';
import type { MeshOptions, OutputOptions, ServeOptions, WebhookOptions } from './options.ts';
import { generationCheck, storeObjects } from './validate.ts';

/** What the webhook shares with the other parts: the names a generation needs, the listeners' limits. */
export interface WebhookShared {
  readonly mesh: Pick<MeshOptions, 'rootNamespace' | 'clusterDomain'>;
  readonly output: Pick<OutputOptions, 'namespaceScope'>;
  readonly handshake: HandshakeLimits;
  readonly httpLimits: ServeOptions['httpLimits'];
}

export interface RunningWebhook {
  readonly server: WebhookServer;
  /** The bound `host:port`. */
  readonly address: string;
}

/** Starts the webhook when `o.address` is set (else resolves undefined); rejects when it cannot bind. */
export async function startWebhook(
  o: WebhookOptions,
  shared: WebhookShared,
  store: ConfigStore,
  devCerts: { readonly paths: DevCertPaths } | undefined,
  logger: Logger,
  pollIntervalMs?: number,
): Promise<RunningWebhook | undefined> {
  const listen = o.address;
  if (!listen) return undefined;
  const ownFiles = o.certFile !== '' && o.keyFile !== '';
  if (!ownFiles && !devCerts) {
    throw new Error('the webhook needs --webhook-cert-file and --webhook-key-file (or --dev-certs)');
  }
  const { rootNamespace, clusterDomain } = shared.mesh;
  const check = generationCheck({
    rootNamespace,
    clusterDomain,
    namespaceScope: shared.output.namespaceScope,
  });
  const parseOptions = { ...DEFAULT_PARSE_OPTIONS, clusterDomain, kinds: store.kinds };
  const server = new WebhookServer({
    address: listen,
    certFile: ownFiles ? o.certFile : devCerts!.paths.serverCert,
    keyFile: ownFiles ? o.keyFile : devCerts!.paths.serverKey,
    kinds: store.kinds,
    validate: (object) =>
      validateObjects([object], {
        rootNamespace,
        parseOptions,
        check,
        existing: storeObjects(store),
      }).issues,
    logger,
    limits: shared.httpLimits,
    handshake: shared.handshake,
    ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
  });
  try {
    const bound = await server.start();
    return { server, address: formatAddress(bound.host || '0.0.0.0', bound.port) };
  } catch (err) {
    await server.stop();
    const why = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
    throw new Error(`${(err as Error).message}${why} (choose another --webhook-address)`, { cause: err });
  }
}
