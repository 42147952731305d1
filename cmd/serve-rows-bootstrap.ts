/** `aeraki serve` options of the namespace bootstrap controller (the sidecar bootstrap ConfigMap). */
import type { BootstrapOptions } from '../src/app/options.ts';
import { text, parseBoolean } from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface BootstrapFlags {
  readonly namespaceBootstrap: boolean;
  readonly xdsServiceAddress: string;
}

export const BOOTSTRAP_ROWS = {
  namespaceBootstrap: {
    flag: '--namespace-bootstrap [bool]',
    env: 'AERAKI_NAMESPACE_BOOTSTRAP',
    default: true,
    description: 'keep the sidecar bootstrap ConfigMap in injected namespaces (--output kube)',
    parse: parseBoolean,
  },
  xdsServiceAddress: {
    flag: '--xds-service-address <host>',
    env: 'AERAKI_XDS_ADDR',
    default: '',
    description: 'address sidecars reach the RDS server at (default: aeraki.<root namespace>)',
    parse: text,
  },
} satisfies RowTable<BootstrapFlags>;

export function bootstrapOptions(f: BootstrapFlags): BootstrapOptions {
  return { enabled: f.namespaceBootstrap, xdsServiceAddress: f.xdsServiceAddress };
}
