// Contexts and fixture access for the MetaProtocol generator suites.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BUILTIN_CODECS } from '../../../src/model/constants.ts';
import type { FilterDraft, GatewayContext, SidecarContext } from '../../../src/model/generator.ts';
import { DEFAULT_MESH_CONFIG } from '../../../src/model/mesh.ts';
import type { Gateway, MeshConfig, MetaRouter, ServiceEntry } from '../../../src/model/objects.ts';
import { createProtocolNames } from '../../../src/plugins/registry.ts';
import type { Result } from '../../../src/model/result.ts';
import { serviceEntry } from '../../support/builders.ts';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
export const fixturesDir = path.resolve(repoRoot, '../shared/fixtures/render');

export interface ExpectedItem {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
}

/** The items of `<case>/expected-envoyfilters.json`, read in place from ../shared. */
export function expectedItems(caseName: string): ExpectedItem[] {
  const file = path.join(fixturesDir, caseName, 'expected-envoyfilters.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { items: ExpectedItem[] }).items;
}

/** The spec of the expected EnvoyFilter named `name` (in `namespace` when given); throws when absent. */
export function expectedSpec(caseName: string, name: string, namespace?: string): Record<string, unknown> {
  const found = expectedItems(caseName).find(
    (i) => i.metadata.name === name && (namespace === undefined || i.metadata.namespace === namespace),
  );
  if (!found) throw new Error(`${caseName}: no expected EnvoyFilter ${namespace ?? '*'}/${name}`);
  return found.spec;
}

/** JSON round trip: what the CLI would print, compared the way the render runner compares. */
export function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function codecs(extra: Record<string, string> = {}): (p: string) => string | undefined {
  const all: Record<string, string> = { ...BUILTIN_CODECS, ...extra };
  return (p) => (Object.hasOwn(all, p) ? all[p] : undefined);
}

export interface SidecarOptions {
  metaRouter?: MetaRouter;
  mesh?: MeshConfig;
  codecs?: Record<string, string>;
}

/** One context per port of `se` (as generateAll would build them for MetaProtocol ports). */
export function sidecarContext(se: ServiceEntry, portIndex: number, o: SidecarOptions = {}): SidecarContext {
  const port = se.spec.ports[portIndex];
  if (!port) throw new Error(`no port ${portIndex}`);
  return {
    mode: 'sidecar',
    serviceEntry: se,
    port,
    portIndex,
    protocol: createProtocolNames().detect(port.name) ?? 'metaprotocol',
    virtualService: undefined,
    destinationRule: undefined,
    metaRouter: o.metaRouter,
    mesh: o.mesh ?? DEFAULT_MESH_CONFIG,
    codecFor: codecs(o.codecs),
  };
}

export function gatewayContext(
  gw: Gateway,
  serverIndex: number,
  metaRouter: MetaRouter,
  mesh: MeshConfig = DEFAULT_MESH_CONFIG,
): GatewayContext {
  const server = gw.spec.servers[serverIndex];
  if (!server) throw new Error(`no server ${serverIndex}`);
  return { mode: 'gateway', gateway: gw, server, serverIndex, metaRouter, mesh, codecFor: codecs() };
}

export function unwrap<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`unexpected failure: ${JSON.stringify(r.issues)}`);
  return r.value;
}

export function draftNamed(drafts: readonly FilterDraft[], name: string): FilterDraft {
  const d = drafts.find((x) => x.name === name);
  if (!d) throw new Error(`no draft ${name} in [${drafts.map((x) => x.name).join(', ')}]`);
  return d;
}

/** The MetaProtocolProxy config inside a draft's single patch. */
export function proxyConfig(draft: FilterDraft): Record<string, unknown> {
  const value = draft.spec.configPatches[0]?.patch.value as {
    typed_config: { value: Record<string, unknown> };
  };
  return value.typed_config.value;
}

export const DEMO_HOST = 'org.apache.dubbo.samples.basic.api.demoservice';

/** The upstream e2e MetaProtocol Dubbo ServiceEntry (fixtures 01, 16, 17, 22, 34 ...). */
export function demoServiceEntry(): ServiceEntry {
  return serviceEntry(
    'metaprotocol',
    'dubbo-demoservice',
    {
      hosts: [DEMO_HOST],
      addresses: ['240.240.0.1'],
      ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'dubbo-sample-provider' } },
      resolution: 'STATIC',
    },
    { annotations: { interface: 'org.apache.dubbo.samples.basic.api.DemoService' } },
  );
}
