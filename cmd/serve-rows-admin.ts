/** `aeraki serve` options of the admin server and of the debug endpoints. */
import type { AdminOptions } from '../src/app/options.ts';
import type { ListenAddress } from '../src/util/address.ts';
import { parseBoolean, parseAddress, showAddress, parseLoopbackDefault } from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface AdminFlags {
  readonly httpAddress: ListenAddress;
  readonly debugEndpoints: boolean;
  readonly debugAddress: ListenAddress;
}

export const ADMIN_ROWS = {
  httpAddress: {
    flag: '--http-address <host:port>',
    env: 'AERAKI_HTTP_ADDRESS',
    default: { host: '0.0.0.0', port: 8080 },
    description: 'admin server: /healthz /readyz /metrics',
    parse: parseAddress,
    format: showAddress,
  },
  debugEndpoints: {
    flag: '--debug-endpoints [bool]',
    env: 'AERAKI_DEBUG_ENDPOINTS',
    default: false,
    description: 'serve /debug/config /debug/envoyfilters /debug/routes on --debug-address',
    parse: parseBoolean,
  },
  debugAddress: {
    flag: '--debug-address <host:port>',
    env: 'AERAKI_DEBUG_ADDRESS',
    default: { host: '127.0.0.1', port: 15090 },
    description: 'listen address of /debug/* (loopback unless another host is named)',
    parse: parseLoopbackDefault,
    format: showAddress,
  },
} satisfies RowTable<AdminFlags>;

export function adminOptions(f: AdminFlags): AdminOptions {
  return { address: f.httpAddress, debugEndpoints: f.debugEndpoints, debugAddress: f.debugAddress };
}
