import type { IstioConfig } from '../../model/objects.ts';

/**
 * MCP type URLs (`<group>/<version>/<Kind>`, istio pkg/config/model.go GroupVersionKind.String). Istio >= 1.24
 * stores networking kinds as `networking.istio.io/v1`, older releases as `v1alpha3`; asking for the other one
 * returns an empty list (spec/wire-formats.md §0.3, §1.4).
 */
export type IstioKind = IstioConfig['kind'];
export type IstioApiVersion = 'v1' | 'v1alpha3';
export type IstioApiMode = IstioApiVersion | 'auto';

/** Aeraki's subscription order (controller.go configCollection), EnvoyFilter left out: it is never read. */
export const MCP_KINDS: readonly IstioKind[] = [
  'ServiceEntry',
  'VirtualService',
  'DestinationRule',
  'Gateway',
];

export const NETWORKING_GROUP = 'networking.istio.io';

export interface McpTypeUrl {
  readonly url: string;
  readonly kind: IstioKind;
  readonly version: IstioApiVersion;
  /** `networking.istio.io/<version>`: the apiVersion given to decoded objects. */
  readonly apiVersion: string;
}

export function typeUrlFor(kind: IstioKind, version: IstioApiVersion): McpTypeUrl {
  const apiVersion = `${NETWORKING_GROUP}/${version}`;
  return { url: `${apiVersion}/${kind}`, kind, version, apiVersion };
}

/** The type URLs to subscribe to, in request order: per kind, v1 before v1alpha3 in auto mode. */
export function subscribedTypeUrls(mode: IstioApiMode): McpTypeUrl[] {
  const versions: IstioApiVersion[] = mode === 'auto' ? ['v1', 'v1alpha3'] : [mode];
  return MCP_KINDS.flatMap((kind) => versions.map((v) => typeUrlFor(kind, v)));
}

/** Parses a `networking.istio.io/<v1|v1alpha3>/<Kind>` URL of one of the MCP kinds. */
export function parseTypeUrl(url: string): McpTypeUrl | undefined {
  const parts = url.split('/');
  if (parts.length !== 3 || parts[0] !== NETWORKING_GROUP) return undefined;
  const [, version, kind] = parts;
  if (version !== 'v1' && version !== 'v1alpha3') return undefined;
  if (!MCP_KINDS.includes(kind as IstioKind)) return undefined;
  return typeUrlFor(kind as IstioKind, version);
}
