/** The analyzers that need no cluster (they run offline and live). */
import type { Analyzer } from '../types.ts';

export const OFFLINE_ANALYZERS: readonly Analyzer[] = [];
