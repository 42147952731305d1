// Test helpers shared by the Dubbo and Thrift suites: sidecar contexts built by hand, and contexts built from a
// render fixture's input.yaml (read in place from ../shared) in two independent ways: a minimal YAML -> typed-model
// mapping written here, and the real pipeline (parseConfigObject -> ConfigStore -> sidecarContexts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { ConfigStore } from '../../../src/controller/store.ts';
import { sidecarContexts } from '../../../src/envoyfilter/context.ts';
import type { Generator, SidecarContext } from '../../../src/model/generator.ts';
import { DEFAULT_MESH_CONFIG } from '../../../src/model/mesh.ts';
import { normalizeHost } from '../../../src/model/names.ts';
import type {
  EnvoyFilterSpec,
  HTTPMatchRequest,
  HTTPRoute,
  HTTPRouteDestination,
  ServiceEntry,
  ServicePort,
  VirtualService,
  WorkloadSelector,
} from '../../../src/model/objects.ts';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import type { Protocol } from '../../../src/model/protocol.ts';
import { createGenerators, createProtocolNames } from '../../../src/plugins/registry.ts';
import { serviceEntry, virtualService } from '../../support/builders.ts';
import { PARSE_OPTIONS, PLUGIN_KINDS } from '../../support/kinds.ts';

const { detect: detectProtocol } = createProtocolNames();

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const fixturesDir = path.resolve(repoRoot, '../shared/fixtures/render');

export function sidecarContext(
  se: ServiceEntry,
  portIndex: number,
  vs?: VirtualService,
): SidecarContext<never> & { port: ServicePort } {
  const port = se.spec.ports[portIndex];
  if (!port) throw new Error(`no port ${portIndex}`);
  return {
    mode: 'sidecar',
    serviceEntry: se,
    port,
    portIndex,
    protocol: detectProtocol(port.name) ?? 'dubbo',
    virtualService: vs,
    destinationRule: undefined,
    metaRouter: undefined,
    mesh: DEFAULT_MESH_CONFIG,
    codecFor: () => undefined,
  };
}

type RawSpec = {
  hosts?: string[];
  addresses?: string[];
  ports?: ServicePort[];
  workloadSelector?: WorkloadSelector;
  http?: { name?: string; match?: HTTPMatchRequest[]; route?: HTTPRouteDestination[] }[];
};

type RawObject = {
  kind?: string;
  metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> };
  spec?: RawSpec;
  items?: RawObject[];
};

function rawObjects(caseName: string): RawObject[] {
  const text = readFileSync(path.join(fixturesDir, caseName, 'input.yaml'), 'utf8');
  const out: RawObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    const o = doc.toJSON() as RawObject | null;
    if (!o) continue;
    if (o.kind === 'List') out.push(...(o.items ?? []));
    else out.push(o);
  }
  return out;
}

function toServiceEntry(o: RawObject): ServiceEntry {
  const spec = o.spec ?? {};
  return serviceEntry(
    o.metadata?.namespace ?? 'default',
    o.metadata?.name ?? '',
    {
      hosts: spec.hosts ?? [],
      addresses: spec.addresses ?? [],
      ports: spec.ports ?? [],
      ...(spec.workloadSelector ? { workloadSelector: spec.workloadSelector } : {}),
    },
    { annotations: o.metadata?.annotations ?? {} },
  );
}

function toVirtualService(o: RawObject): VirtualService {
  const spec = o.spec ?? {};
  const http: HTTPRoute[] = (spec.http ?? []).map((h) => ({
    ...(h.name !== undefined ? { name: h.name } : {}),
    match: h.match ?? [],
    route: h.route ?? [],
  }));
  return virtualService(o.metadata?.namespace ?? 'default', o.metadata?.name ?? '', {
    hosts: spec.hosts ?? [],
    http,
  });
}

/** One sidecar context per port of `protocol` of every ServiceEntry of the case, VS resolved by FQDN host (D6). */
export function fixtureContexts(caseName: string, protocol: Protocol): SidecarContext<never>[] {
  const objects = rawObjects(caseName);
  const vss = objects.filter((o) => o.kind === 'VirtualService').map(toVirtualService);
  const out: SidecarContext<never>[] = [];
  for (const se of objects.filter((o) => o.kind === 'ServiceEntry').map(toServiceEntry)) {
    const ns = se.metadata.namespace;
    const host = normalizeHost(se.spec.hosts[0] ?? '', ns);
    const vs = vss.find((v) => v.spec.hosts.some((h) => normalizeHost(h, v.metadata.namespace) === host));
    se.spec.ports.forEach((p, i) => {
      if (detectProtocol(p.name) === protocol) out.push(sidecarContext(se, i, vs));
    });
  }
  return out;
}

/**
 * The same contexts through the controller's own parser, store and context resolution (with the registry's
 * generators, so each port gets what its own generator resolves: typed `X` by the caller).
 */
export function pipelineContexts<X = never>(caseName: string, protocol: Protocol): SidecarContext<X>[] {
  const store = new ConfigStore({ rootNamespace: 'istio-system', kinds: PLUGIN_KINDS });
  for (const raw of rawObjects(caseName)) {
    const parsed = parseConfigObject(raw, PARSE_OPTIONS);
    if (parsed === undefined) continue;
    if (!parsed.ok) throw new Error(`fixture object does not parse: ${JSON.stringify(parsed.issues)}`);
    store.upsert(parsed.value);
  }
  return store
    .serviceEntries()
    .flatMap((se) => sidecarContexts(store, se, se.spec.hosts[0] ?? '', generatorsByProtocol()))
    .filter((ctx) => ctx.protocol === protocol) as SidecarContext<X>[];
}

/** The registry's generators, by protocol. */
function generatorsByProtocol(): Map<Protocol, Generator> {
  const out = new Map<Protocol, Generator>();
  for (const g of createGenerators()) for (const p of g.protocols) out.set(p, g);
  return out;
}

export const CONTEXT_SOURCES = { 'by hand': fixtureContexts, pipeline: pipelineContexts } as const;

/** name -> spec of the expected EnvoyFilters whose patch value is the network filter `filterName`. */
export function expectedFilters(caseName: string, filterName: string): Map<string, EnvoyFilterSpec> {
  const file = path.join(fixturesDir, caseName, 'expected-envoyfilters.json');
  const list = JSON.parse(readFileSync(file, 'utf8')) as {
    items: { metadata: { name: string }; spec: EnvoyFilterSpec }[];
  };
  const out = new Map<string, EnvoyFilterSpec>();
  for (const item of list.items) {
    const value = item.spec.configPatches[0]?.patch.value;
    if (value?.['name'] === filterName) out.set(item.metadata.name, item.spec);
  }
  return out;
}
