/** `aeraki serve` options of the proxy status read from istiod (istio.io/debug/syncz, src/proxy-status). */
import type { ProxyStatusOptions } from '../src/app/options.ts';
import { parseDurationMs } from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface ProxyStatusFlags {
  readonly proxyStatusIntervalMs: number;
}

export const PROXY_STATUS_ROWS = {
  proxyStatusIntervalMs: {
    flag: '--proxy-status-interval <duration>',
    env: 'AERAKI_PROXY_STATUS_INTERVAL',
    default: 30_000,
    description:
      "with --output kube: how often istiod is asked which proxies reject this controller's EnvoyFilters (on --istiod-address with the MCP credentials; 0: never)",
    parse: parseDurationMs,
  },
} satisfies RowTable<ProxyStatusFlags>;

export function proxyStatusOptions(f: ProxyStatusFlags): ProxyStatusOptions {
  return { intervalMs: f.proxyStatusIntervalMs };
}
