// `proxy-status`: the cost of reading and attributing one syncz answer for 5,000 proxies (decode it, index the
// desired EnvoyFilters of 1,000 services, attribute the rejections), in both forms istiod answers: the
// istio.io/debug/syncz ClientConfigs (`syncz5k*`) and the newest istio.io/debug `syncz` JSON with each type's last
// error (`debugSyncz5k*`), which the controller asks first. Target: under 100 ms for the whole of each.
import { SOURCE_ANNOTATION } from '../src/model/constants.ts';
import type { EnvoyFilterObject } from '../src/model/objects.ts';
import { outboundPatch } from '../src/plugins/sdk/patches.ts';
import { attributeRejections, indexEnvoyFilters } from '../src/proxy-status/attribute.ts';
import { decodeDebugSyncz, decodeSyncz, type DecodeResult } from '../src/proxy-status/decode.ts';
import { encodeDebugSyncz, encodeSyncz, proxyId, type FakeProxy } from '../test/fakes/istiod/syncz.ts';
import { median, round } from './figures.ts';

const PROXIES = 5_000;
const SERVICES = 1_000;
const ROUNDS = 11;

const META = {
  filterName: 'envoy.filters.network.meta_protocol_proxy',
  typeUrl: 'type.googleapis.com/aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy',
  config: { statPrefix: 'bench' },
};

const ip = (i: number): string => `10.96.${Math.floor(i / 250)}.${(i % 250) + 1}`;

function filters(): EnvoyFilterObject[] {
  const out: EnvoyFilterObject[] = [];
  for (let i = 0; i < SERVICES; i++) {
    out.push({
      apiVersion: 'networking.istio.io/v1alpha3',
      kind: 'EnvoyFilter',
      metadata: {
        name: `svc-${i}`,
        namespace: 'istio-system',
        labels: {},
        annotations: { [SOURCE_ANNOTATION]: `ServiceEntry/ns-${i % 50}/svc-${i}` },
      },
      spec: { configPatches: [outboundPatch(ip(i), 20880, META), outboundPatch(ip(i), 20881, META)] },
    });
  }
  return out;
}

/** 5,000 proxies in 50 namespaces: one in ten rejects a listener (half of them ours), one in fifty lacks the filter. */
function proxies(): FakeProxy[] {
  const out: FakeProxy[] = [];
  for (let i = 0; i < PROXIES; i++) {
    const namespace = `ns-${i % 50}`;
    const id = proxyId(`pod-${i}`, namespace);
    if (i % 50 === 7) {
      out.push({
        id,
        namespace,
        lds: 'ERROR',
        ldsError: `Error adding/updating listener(s) ${ip(i % SERVICES)}_20880: Didn't find a registered implementation for '${META.filterName}' with type URL: 'aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy'`,
      });
    } else if (i % 10 === 3) {
      const ours = i % 20 === 3;
      out.push({
        id,
        namespace,
        lds: 'ERROR',
        ldsError: `Error adding/updating listener(s) ${ours ? ip(i % SERVICES) : '10.200.0.1'}_20880: proto constraint validation failed`,
      });
    } else {
      out.push({ id, namespace, lds: i % 97 === 0 ? 'STALE' : 'SYNCED' });
    }
  }
  return out;
}

interface FormFigures {
  readonly attributedSources: number;
  readonly decodeMs: number;
  readonly indexMs: number;
  readonly attributeMs: number;
  readonly totalMs: number;
}

/** Median timings of ROUNDS reads of one answer: decode, index the desired set, attribute. */
function measure(decode: () => DecodeResult, desired: readonly EnvoyFilterObject[]): FormFigures {
  const decodeMs: number[] = [];
  const indexMs: number[] = [];
  const attributeMs: number[] = [];
  const totalMs: number[] = [];
  let attributed = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    const decoded = decode();
    const t1 = performance.now();
    const index = indexEnvoyFilters(desired, 'istio-system');
    const t2 = performance.now();
    if (!decoded.ok) throw new Error(decoded.reason);
    attributed = attributeRejections(decoded.proxies, index).length;
    const t3 = performance.now();
    decodeMs.push(t1 - t0);
    indexMs.push(t2 - t1);
    attributeMs.push(t3 - t2);
    totalMs.push(t3 - t0);
  }
  return {
    attributedSources: attributed,
    decodeMs: round(median(decodeMs)),
    indexMs: round(median(indexMs)),
    attributeMs: round(median(attributeMs)),
    totalMs: round(median(totalMs)),
  };
}

export function benchProxyStatus(): Promise<Record<string, unknown>> {
  const fleet = proxies();
  const desired = filters();
  const answer = encodeSyncz(fleet, 'current');
  const debugAnswer = encodeDebugSyncz(fleet, 'newest');
  const status = measure(() => decodeSyncz(answer), desired);
  const debug = measure(() => decodeDebugSyncz(debugAnswer), desired);
  if (debug.attributedSources !== status.attributedSources) {
    throw new Error(
      `the two forms attribute differently: ${debug.attributedSources} against ${status.attributedSources}`,
    );
  }
  const figures = {
    proxies: PROXIES,
    services: SERVICES,
    attributedSources: status.attributedSources,
    syncz5kDecodeMs: status.decodeMs,
    syncz5kIndexMs: status.indexMs,
    syncz5kAttributeMs: status.attributeMs,
    syncz5kMs: status.totalMs,
    debugSyncz5kBytes: debugAnswer.reduce((n, a) => n + (a.value?.length ?? 0), 0),
    debugSyncz5kDecodeMs: debug.decodeMs,
    debugSyncz5kMs: debug.totalMs,
    targetMs: 100,
  };
  console.log(JSON.stringify(figures));
  return Promise.resolve(figures);
}
