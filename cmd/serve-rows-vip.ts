/** `aeraki serve` options of the VIP allocator. */
import type { VipOptions } from '../src/app/options.ts';
import { parseBoolean } from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface VipFlags {
  readonly allocateVips: boolean | undefined;
}

export const VIP_ROWS = {
  allocateVips: {
    flag: '--allocate-vips [bool]',
    env: 'AERAKI_ALLOCATE_VIPS',
    default: undefined,
    description:
      'write a VIP from 240.240.0.0/16 into address-less ServiceEntries (default: true with --output kube)',
    parse: parseBoolean,
  },
} satisfies RowTable<VipFlags>;

/** `allocate`: the default of `--allocate-vips` filled in (serve-config.ts). */
export function vipOptions(allocate: boolean): VipOptions {
  return { allocate };
}
