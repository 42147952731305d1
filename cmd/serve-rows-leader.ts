/** `aeraki serve` options of leader election (its identity is `--pod-name`, serve-rows-mesh.ts). */
import type { LeaderOptions } from '../src/app/options.ts';
import { parseBoolean, parseDurationMs } from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface LeaderFlags {
  readonly leaderElect: boolean | undefined;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export const LEADER_ROWS = {
  leaderElect: {
    flag: '--leader-elect [bool]',
    env: 'AERAKI_LEADER_ELECT',
    default: undefined,
    description: 'elect one writer through a Lease (default: true with --output kube)',
    parse: parseBoolean,
  },
  leaseDurationMs: {
    flag: '--lease-duration <duration>',
    env: 'AERAKI_LEASE_DURATION',
    default: 15_000,
    description: 'leader lease duration',
    parse: parseDurationMs,
  },
  renewDeadlineMs: {
    flag: '--renew-deadline <duration>',
    env: 'AERAKI_RENEW_DEADLINE',
    default: 10_000,
    description: 'a leader that cannot renew for this long stops writing',
    parse: parseDurationMs,
  },
  retryPeriodMs: {
    flag: '--retry-period <duration>',
    env: 'AERAKI_RETRY_PERIOD',
    default: 2_000,
    description: 'lease acquire/renew period',
    parse: parseDurationMs,
  },
} satisfies RowTable<LeaderFlags>;

/** `elect`: the default of `--leader-elect` filled in (serve-config.ts). */
export function leaderOptions(f: LeaderFlags, elect: boolean): LeaderOptions {
  return {
    elect,
    leaseDurationMs: f.leaseDurationMs,
    renewDeadlineMs: f.renewDeadlineMs,
    retryPeriodMs: f.retryPeriodMs,
  };
}
