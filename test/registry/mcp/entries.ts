// Registry ServiceEntries as the bridge emits them, for the MCP server's tests.
import type { RegistryEndpoint, RegistryServiceEntry } from '../../../src/registry/types.ts';

export function endpoint(
  address: string,
  version = '1.0.0',
  extra: Partial<RegistryEndpoint> = {},
): RegistryEndpoint {
  return {
    address,
    ports: { 'tcp-metaprotocol-dubbo': 20880 },
    labels: { version, application: 'demo' },
    ...extra,
  };
}

/** `zk-<iface>` in namespace `ns`, one tcp-metaprotocol-dubbo port, the given endpoints. */
export function registryEntry(
  iface: string,
  endpoints: readonly RegistryEndpoint[],
  ns = 'dubbo',
): RegistryServiceEntry {
  const host = iface.toLowerCase();
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'ServiceEntry',
    metadata: {
      name: `zk-${host.replaceAll('.', '-')}`,
      namespace: ns,
      labels: { manager: 'Aeraki', registry: 'zk' },
      annotations: { 'aeraki.net/interface': iface },
    },
    spec: {
      hosts: [host],
      addresses: ['240.240.0.7'],
      ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
      location: 'MESH_INTERNAL',
      resolution: 'STATIC',
      endpoints,
    },
  };
}
