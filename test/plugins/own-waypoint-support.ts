// Contexts of our own waypoint (OwnWaypointContext) built as the translation builds them, from YAML through the real
// parser and store, and the strict check of everything a generator returns against protos-2026.
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { fillStore, parseRawObjects } from '../../src/controller/file-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { waypointImageOf, type WaypointImageKind } from '../../src/model/ambient/own-waypoint.ts';
import type { Generator, OwnWaypointChain, OwnWaypointContext } from '../../src/model/generator.ts';
import { outboundClusterName, routeConfigName } from '../../src/model/names.ts';
import type { ServiceEntry } from '../../src/model/objects.ts';
import { protocolSegment } from '../../src/model/protocol.ts';
import { formatIssue, type ConfigIssue, type Result } from '../../src/model/result.ts';
import { xdsProblems } from '../conformance/xds-check.ts';
import { PARSE_OPTIONS, PLUGIN_KINDS } from '../support/kinds.ts';

export const FILTER_TYPE = 'type.googleapis.com/envoy.config.listener.v3.Filter';

export const IMAGES: Readonly<Record<WaypointImageKind, string>> = {
  envoy: 'docker.io/envoyproxy/envoy:v1.38.4',
  'envoy-contrib': 'docker.io/envoyproxy/envoy:contrib-v1.38.4',
  metaprotocol: 'ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2',
};

export function storeOf(yaml: string): ConfigStore {
  const raws = parseAllDocuments(yaml).map((d) => d.toJS() as unknown);
  const parsed = parseRawObjects(raws, 'istio-system', [], PARSE_OPTIONS);
  assert.deepEqual(parsed.issues.map(formatIssue), [], 'valid input');
  const store = new ConfigStore({ rootNamespace: 'istio-system', kinds: PLUGIN_KINDS });
  fillStore(store, parsed);
  return store;
}

/** A context and the clusters the generator named through it (in the order named, distinct). */
export interface Built<X> {
  readonly ctx: OwnWaypointContext<X>;
  readonly clusters: string[];
}

/** The context of port `portIndex` of ServiceEntry `ns/name` in `store`, on waypoint `ns/waypoint` running `kind`. */
export function ownContext<X>(
  store: ConfigStore,
  generator: Generator<X>,
  ns: string,
  name: string,
  portIndex = 0,
  kind: WaypointImageKind = 'envoy',
): Built<X> {
  const se = store.get('ServiceEntry', ns, name) as ServiceEntry | undefined;
  assert.ok(se, `ServiceEntry ${ns}/${name}`);
  const port = se.spec.ports[portIndex];
  const host = se.spec.hosts[0];
  assert.ok(port && host);
  const clusters: string[] = [];
  const extension = generator.resolveContext?.(store, se);
  const ctx: OwnWaypointContext<X> = {
    mode: 'own-waypoint',
    serviceEntry: se,
    port,
    portIndex,
    protocol: protocolSegment(port.name) ?? 'tcp',
    host,
    waypoint: { namespace: ns, name: 'waypoint' },
    image: waypointImageOf(IMAGES[kind], [IMAGES.metaprotocol]),
    ...store.configForHost(host, ns),
    mesh: store.mesh(),
    codecFor: (app) => store.codecFor(app),
    clusterOf: (subset, to = host, toPort = port.number) => {
      const cluster = outboundClusterName(toPort, subset, to);
      if (!clusters.includes(cluster)) clusters.push(cluster);
      return cluster;
    },
    routeName: routeConfigName(host, port.number),
    ...(extension !== undefined ? { extension } : {}),
  };
  return { ctx, clusters };
}

/** The chain of `result`, asserting it is there and that every filter and route resource passes the strict check. */
export function checkedChain(result: Result<OwnWaypointChain | undefined>): OwnWaypointChain {
  assert.ok(result.ok, result.issues.map(formatIssue).join('\n'));
  const chain = result.value;
  assert.ok(chain, 'a chain');
  chain.filters.forEach((f, i) => assert.deepEqual(xdsProblems(FILTER_TYPE, f, `$.filters[${i}]`), []));
  for (const r of chain.routes ?? []) {
    assert.equal((r.json as { name?: unknown }).name, r.name, 'a route resource is named as its name');
    assert.deepEqual(xdsProblems(r.typeUrl, r.json, `$.routes[${r.name}]`), []);
  }
  return chain;
}

export function issueLines(issues: readonly ConfigIssue[]): string[] {
  return issues.map(formatIssue);
}

/** `json` with every Any / TypedStruct left as is: a loose accessor for assertions. */
export function at(json: unknown, ...path: (string | number)[]): any {
  let v: any = json;
  for (const p of path) v = v?.[p];
  return v;
}
