/**
 * `aeraki serve` options naming the mesh (root namespace, cluster and trust domains, the control plane followed)
 * and this replica (`--pod-name`): the values several parts share, each handed only the ones it needs.
 */
import type { MeshOptions } from '../src/app/options.ts';
import type { IstioApiMode } from '../src/controller/mcp/index.ts';
import { DEFAULT_ROOT_NAMESPACE } from '../src/model/constants.ts';
import { text, parseNamespace, parseDomain, oneOf, splitList } from './parsers.ts';
import { CLUSTER_DOMAIN_ROW, type RowTable } from './rows.ts';

export interface MeshFlags {
  readonly istioApiVersion: IstioApiMode;
  readonly revision: string;
  readonly rootNamespace: string;
  readonly clusterDomain: string;
  readonly trustDomain: string;
  readonly trustDomainAliases: readonly string[];
  readonly podName: string;
}

export const MESH_ROWS = {
  istioApiVersion: {
    flag: '--istio-api-version <version>',
    env: 'AERAKI_ISTIO_API_VERSION',
    default: 'auto',
    description: 'networking.istio.io version to read: auto | v1 | v1alpha3',
    parse: oneOf('auto', 'v1', 'v1alpha3'),
  },
  revision: {
    flag: '--revision <rev>',
    env: 'AERAKI_REVISION',
    default: '',
    description: 'follow this istio.io/rev control plane (default revision when empty)',
    parse: text,
  },
  rootNamespace: {
    flag: '--root-namespace <namespace>',
    env: 'AERAKI_NAMESPACE',
    default: DEFAULT_ROOT_NAMESPACE,
    description: 'Istio root namespace (mesh ConfigMap, Lease, filters)',
    parse: parseNamespace,
  },
  clusterDomain: CLUSTER_DOMAIN_ROW,
  trustDomain: {
    flag: '--trust-domain <domain>',
    env: 'AERAKI_TRUST_DOMAIN',
    default: 'cluster.local',
    description: "the mesh trust domain (the controller's identity; RDS clients need a SPIFFE id in it)",
    parse: parseDomain,
  },
  trustDomainAliases: {
    flag: '--trust-domain-aliases <domains>',
    env: 'AERAKI_TRUST_DOMAIN_ALIASES',
    default: [],
    description: 'comma-separated trust domains also accepted for RDS clients',
    parse: splitList(parseDomain),
  },
  podName: {
    flag: '--pod-name <name>',
    env: 'POD_NAME',
    default: '',
    description: 'leader election identity and MCP node name (default: the host name)',
    parse: text,
  },
} satisfies RowTable<MeshFlags>;

export function meshOptions(f: MeshFlags): MeshOptions {
  return {
    rootNamespace: f.rootNamespace,
    clusterDomain: f.clusterDomain,
    revision: f.revision,
    istioApiVersion: f.istioApiVersion,
    trustDomain: f.trustDomain,
    trustDomainAliases: f.trustDomainAliases,
  };
}
