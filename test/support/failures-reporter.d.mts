// Types of failures-reporter.mjs (plain JavaScript: node loads reporters before tsx applies).
import type { TestEvent } from 'node:test/reporters';

export default function failuresReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string>;
export function reportTo(
  source: AsyncIterable<TestEvent>,
  writeProgress: (line: string) => void,
): AsyncGenerator<string>;
export const PROGRESS_EVERY: number;
