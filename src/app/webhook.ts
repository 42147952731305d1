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
import { handshakeLimits, type ServeOptions } from './options.ts';
import { generationCheck, storeObjects } from './validate.ts';

export interface RunningWebhook {
  readonly server: WebhookServer;
  /** The bound `host:port`. */
  readonly address: string;
}

/** Starts the webhook when `o.webhookAddress` is set (else resolves undefined); rejects when it cannot bind. */
export async function startWebhook(
  o: ServeOptions,
  store: ConfigStore,
  devCerts: { readonly paths: DevCertPaths } | undefined,
  logger: Logger,
  pollIntervalMs?: number,
): Promise<RunningWebhook | undefined> {
  const listen = o.webhookAddress;
  if (!listen) return undefined;
  const ownFiles = o.webhookCertFile !== '' && o.webhookKeyFile !== '';
  if (!ownFiles && !devCerts) {
    throw new Error('the webhook needs --webhook-cert-file and --webhook-key-file (or --dev-certs)');
  }
  const check = generationCheck(o);
  const parseOptions = { ...DEFAULT_PARSE_OPTIONS, clusterDomain: o.clusterDomain, kinds: store.kinds };
  const server = new WebhookServer({
    address: listen,
    certFile: ownFiles ? o.webhookCertFile : devCerts!.paths.serverCert,
    keyFile: ownFiles ? o.webhookKeyFile : devCerts!.paths.serverKey,
    kinds: store.kinds,
    validate: (object) =>
      validateObjects([object], {
        rootNamespace: o.rootNamespace,
        parseOptions,
        check,
        existing: storeObjects(store),
      }).issues,
    logger,
    limits: { headersTimeoutMs: o.httpHeadersTimeoutMs, requestTimeoutMs: o.httpRequestTimeoutMs },
    handshake: handshakeLimits(o),
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
