// A Logger that keeps what was logged (level, message, fields), for tests that assert on warnings.
import type { Logger } from '../../src/util/logger.ts';

export interface LogRecord {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

export function recordingLogger(
  records: LogRecord[] = [],
  base: Record<string, unknown> = {},
): Logger & {
  readonly records: LogRecord[];
} {
  const at =
    (level: LogRecord['level']) =>
    (message: string, fields: Record<string, unknown> = {}): void => {
      records.push({ level, message, fields: { ...base, ...fields } });
    };
  return {
    records,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (fields) => recordingLogger(records, { ...base, ...fields }),
  };
}
