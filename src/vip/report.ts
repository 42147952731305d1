/** What one run of the VIP allocator did (controller.ts). */
import type { ConfigIssue } from '../model/result.ts';
import type { SinkError, WriteFailure } from '../kit/write.ts';

export interface VipRunReport {
  readonly skipped?: 'not-synced';
  /** ServiceEntries updated with a new VIP (`allocated` of them had none, `reassigned` shared one). */
  readonly allocated: number;
  readonly reassigned: number;
  /** Eligible ServiceEntries whose VIP stayed. */
  readonly kept: number;
  readonly failures: readonly WriteFailure[];
  /** Listing the ServiceEntries failed (nothing was written). */
  readonly listError?: SinkError;
  /** Writing stopped because the controller was stopped (leadership lost). */
  readonly interrupted: boolean;
  /** ServiceEntries that needed a VIP and got none (range exhausted). */
  readonly issues: readonly ConfigIssue[];
}

export const EMPTY_VIP_REPORT: VipRunReport = {
  allocated: 0,
  reassigned: 0,
  kept: 0,
  failures: [],
  interrupted: false,
  issues: [],
};
