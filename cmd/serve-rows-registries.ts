/** `aeraki serve` options of the registry bridges (README "Registries") and their ServiceEntry MCP server. */
import type { RegistryBridgesOptions, RegistryOutputKind } from '../src/app/options.ts';
import type { RegistrySpec } from '../src/model/registry-bridge.ts';
import type { ListenAddress } from '../src/util/address.ts';
import {
  parseBoolean,
  parseSpiffeId,
  oneOf,
  parseAddress,
  showAddress,
  parseRegistries,
  splitList,
} from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface RegistryFlags {
  readonly registries: readonly RegistrySpec[];
  readonly registryOutput: RegistryOutputKind;
  readonly mcpServerAddress: ListenAddress;
  readonly mcpServerInsecure: boolean;
  readonly mcpServerAllowedIdentities: readonly string[];
}

export const REGISTRY_ROWS = {
  registries: {
    flag: '--registry <name=url>',
    env: 'AERAKI_REGISTRIES',
    default: [],
    description:
      'bridge a Dubbo registry into ServiceEntries, e.g. zk=zookeeper://zk:2181/dubbo (repeatable; env: comma-separated)',
    parse: parseRegistries,
  },
  registryOutput: {
    flag: '--registry-output <mode>',
    env: 'AERAKI_REGISTRY_OUTPUT',
    default: 'kube',
    description:
      'registry ServiceEntries to istiod: kube (written by the leader) | mcp (served on --mcp-server-address)',
    parse: oneOf('kube', 'mcp'),
  },
  mcpServerAddress: {
    flag: '--mcp-server-address <host:port>',
    env: 'AERAKI_MCP_SERVER_ADDRESS',
    default: { host: '0.0.0.0', port: 15011 },
    description: 'ServiceEntry MCP server listen address (--registry-output mcp)',
    parse: parseAddress,
    format: showAddress,
  },
  mcpServerInsecure: {
    flag: '--mcp-server-insecure [bool]',
    env: 'AERAKI_MCP_SERVER_INSECURE',
    default: false,
    description:
      'serve the MCP server in plaintext without verifying clients (stock istiod reads xds:// sources so)',
    parse: parseBoolean,
  },
  mcpServerAllowedIdentities: {
    flag: '--mcp-server-allowed-identities <ids>',
    env: 'AERAKI_MCP_SERVER_ALLOWED_IDENTITIES',
    default: [],
    description:
      "comma-separated SPIFFE ids that may read the MCP server (default: istiod's, spiffe://<trust domain>/ns/<root namespace>/sa/istiod[-<revision>])",
    parse: splitList(parseSpiffeId),
  },
} satisfies RowTable<RegistryFlags>;

export function registryOptions(f: RegistryFlags): RegistryBridgesOptions {
  return {
    specs: f.registries,
    output: f.registryOutput,
    mcpServerAddress: f.mcpServerAddress,
    mcpServerInsecure: f.mcpServerInsecure,
    mcpServerAllowedIdentities: f.mcpServerAllowedIdentities,
  };
}
