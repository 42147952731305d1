/** What one run of the namespace bootstrap controller did (namespace-bootstrap.ts). */
import type { ConfigIssue } from '../model/result.ts';
import type { SinkError, WriteFailure } from '../kit/write.ts';

export interface BootstrapRunReport {
  readonly skipped?: 'not-synced' | 'invalid-target';
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  readonly unchanged: number;
  /** Namespaces holding a foreign `aeraki-bootstrap-config` that was left alone. */
  readonly conflicts: readonly string[];
  readonly failures: readonly WriteFailure[];
  /** Listing the existing ConfigMaps failed (nothing was written). */
  readonly listError?: SinkError;
  /** Writing stopped because the controller was stopped (leadership lost). */
  readonly interrupted: boolean;
  readonly issues: readonly ConfigIssue[];
}

export const EMPTY_REPORT: BootstrapRunReport = {
  created: 0,
  updated: 0,
  deleted: 0,
  unchanged: 0,
  conflicts: [],
  failures: [],
  interrupted: false,
  issues: [],
};
