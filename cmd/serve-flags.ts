import type { ServeOptions } from '../src/app/options.ts';

/** What the `aeraki serve` table fills: ServeOptions before the defaults that depend on other options. */
export type ServeFlags = Omit<ServeOptions, 'leaderElect' | 'allocateVips' | 'version'> & {
  readonly leaderElect: boolean | undefined;
  readonly allocateVips: boolean | undefined;
};
