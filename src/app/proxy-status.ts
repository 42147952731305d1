/**
 * The proxy-status part of `aeraki serve`: asks istiod for its proxies' sync state (SynczClient, on an ADS stream of
 * its own with the MCP client's address and credentials; over TLS with an identity first in the form that carries
 * the rejections' details, `istio.io/debug` + `syncz`, else `istio.io/debug/syncz`), attributes the listener rejections to the desired
 * EnvoyFilters and keeps them in a ListenerRejectionsStore that the status controller and the metrics read.
 */
import { AdsTransport, usesTls } from '../controller/mcp/transport.ts';
import { buildNode, firstHostIp, type NodeIdentity, type NodeMessage } from '../controller/mcp/node.ts';
import { loadMcpProtos } from '../controller/mcp/protos.ts';
import type { KeyPair } from '../kit/certs/key-pair.ts';
import type { EnvoyFilterObject, OutputObject } from '../model/objects.ts';
import { recordListenerRejections, type ProxyStatusMetrics } from '../ops/proxy-status-metrics.ts';
import { attributeProxies, indexEnvoyFilters, rejectionsBySource } from '../proxy-status/attribute.ts';
import { SynczClient } from '../proxy-status/client.ts';
import { SYNCZ_TYPE_URL } from '../proxy-status/protos.ts';
import { ListenerRejectionsStore } from '../proxy-status/rejections.ts';
import type { ListenerRejectionsDoc } from '../tools/proxies-document.ts';
import type { Logger } from '../util/logger.ts';
import type { ServeOptions } from './options.ts';
import { outputOf } from './outputs.ts';

export interface ProxyStatusPart {
  readonly rejections: ListenerRejectionsStore;
  start(): void;
  stop(): void;
  /** EnvoyFilters were written: ask soon. */
  nudge(): void;
  /** The `listenerRejections` part of /debug/proxies. */
  document(): ListenerRejectionsDoc;
}

export interface ProxyStatusDeps {
  /** The current desired output (EnvoyFilters with their source annotation). */
  readonly desired: () => readonly OutputObject[];
  readonly metrics: ProxyStatusMetrics;
  readonly clientIdentity?: () => KeyPair | undefined;
  readonly logger: Logger;
}

/**
 * The warning's advice when istiod refuses syncz on a plaintext address: istiod's status generator answers any
 * caller (docs/wire-formats.md), but an istiod that restricts debug types answers only on its TLS port to an
 * identity of the root namespace, which the controller's token is.
 */
export const PLAINTEXT_HINT =
  'if this istiod answers debug types only to authenticated callers, point --istiod-address at its TLS port ' +
  '(istiod.istio-system:15012, TLS with --istiod-tls auto) with --istiod-root-cert-file and ' +
  "--istiod-token-file (the controller's service account token: an identity of the root namespace)";

/**
 * The node of the syncz stream: the MCP client's node without `GENERATOR: api`. istiod routes a request to the
 * generator the node names before falling back to its status generator for `istio.io/debug/*` (ads.go
 * findGenerator); with `GENERATOR: api` the MCP generator answers syncz with an empty list, which would read as
 * "no proxy rejects anything" (docs/wire-formats.md).
 */
export function synczNode(n: NodeIdentity): NodeMessage {
  const { id, metadata } = buildNode(n);
  const fields = Object.fromEntries(Object.entries(metadata.fields).filter(([k]) => k !== 'GENERATOR'));
  return { id, metadata: { fields } };
}

/**
 * Undefined when off: `--proxy-status-interval 0`, no proxyStatus options, or EnvoyFilters not written to the API
 * server (an output that does not reach proxies, e.g. `--output dir`: istiod has nothing to say about them).
 */
export function buildProxyStatus(
  o: Pick<ServeOptions, 'proxyStatus' | 'source' | 'mesh' | 'podName' | 'output'>,
  deps: ProxyStatusDeps,
): ProxyStatusPart | undefined {
  if (!o.proxyStatus || o.proxyStatus.intervalMs <= 0 || !outputOf(o.output.kind).reachesProxies)
    return undefined;
  const { source, mesh } = o;
  const transport = new AdsTransport(
    {
      address: source.istiodAddress,
      tls: source.istiodTls,
      ...(source.istiodRootCertFile ? { rootCertFile: source.istiodRootCertFile } : {}),
      ...(source.istiodTokenFile ? { tokenFile: source.istiodTokenFile } : {}),
      ...(deps.clientIdentity ? { clientIdentity: deps.clientIdentity } : {}),
    },
    loadMcpProtos(),
  );
  const tls = usesTls(source.istiodAddress, source.istiodTls);
  // istiod's DebugGen answers only a verified identity (TLS with the token or a client certificate).
  const identified = tls && (Boolean(source.istiodTokenFile) || deps.clientIdentity !== undefined);
  const rejections = new ListenerRejectionsStore();
  const log = deps.logger.child({ component: 'proxy-status' });
  const last = { at: 0, proxies: 0 };
  const client = new SynczClient(
    {
      open: () => transport.open(),
      node: synczNode({
        podName: o.podName,
        namespace: mesh.rootNamespace,
        podIp: firstHostIp(),
        clusterDomain: mesh.clusterDomain,
      }),
      intervalMs: o.proxyStatus.intervalMs,
      detailedForm: identified,
      ...(tls ? {} : { refusalHint: PLAINTEXT_HINT }),
    },
    {
      logger: log,
      onAnswer: (proxies) => {
        const filters = deps.desired().filter((x): x is EnvoyFilterObject => x.kind === 'EnvoyFilter');
        const byProxy = attributeProxies(proxies, indexEnvoyFilters(filters, mesh.rootNamespace));
        const list = rejectionsBySource(byProxy);
        recordListenerRejections(deps.metrics, list);
        last.at = Date.now();
        last.proxies = proxies.length;
        if (rejections.set(list, byProxy)) {
          log.info('listener rejections changed', { objects: list.length });
        }
      },
    },
  );
  return {
    rejections,
    start: () => {
      if (!identified) {
        log.info(
          `istiod is asked ${SYNCZ_TYPE_URL} only (no TLS identity): a proxy's rejected push reads as stale ` +
            'there, without its message, and is not reported; rejection details need the TLS port with ' +
            '--istiod-token-file (docs/wire-formats.md)',
        );
      }
      client.start();
    },
    stop: () => {
      client.stop();
      transport.close();
    },
    nudge: () => client.nudge(),
    document: () => ({
      state: client.state,
      ...(last.at > 0 ? { answeredAt: new Date(last.at).toISOString() } : {}),
      ...(client.answeredForm !== undefined ? { form: client.answeredForm } : {}),
      proxiesReported: last.proxies,
      sources: rejections.current(),
      proxies: rejections.byProxy(),
    }),
  };
}
