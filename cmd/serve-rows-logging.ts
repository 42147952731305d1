/** `aeraki serve` options of logging. */
import type { LoggingOptions } from '../src/app/options.ts';
import type { LogFormat, LogLevel } from '../src/util/logging.ts';
import { oneOf, parseLogLevel } from './parsers.ts';
import type { RowTable } from './rows.ts';

export interface LoggingFlags {
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
}

export const LOGGING_ROWS = {
  logLevel: {
    flag: '--log-level <level>',
    env: 'AERAKI_LOG_LEVEL',
    default: 'info',
    description: 'debug | info | warn | error (Aeraki form all:<level> accepted)',
    parse: parseLogLevel,
  },
  logFormat: {
    flag: '--log-format <format>',
    env: 'AERAKI_LOG_FORMAT',
    default: 'json',
    description: 'json | text',
    parse: oneOf('json', 'text'),
  },
} satisfies RowTable<LoggingFlags>;

export function loggingOptions(f: LoggingFlags): LoggingOptions {
  return { level: f.logLevel, format: f.logFormat };
}
