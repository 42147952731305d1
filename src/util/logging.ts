/**
 * The production Logger (model/logger.ts) on winston: JSON lines (or readable text) on stderr, a `component`
 * field on every line, structured fields kept as they are. Errors passed as fields are serialised with
 * errorFields (winston prints a nested Error as `{}`).
 */
import winston from 'winston';
import { errorFields, type Logger } from './logger.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFormat = 'json' | 'text';

export interface LoggingOptions {
  readonly level: LogLevel;
  readonly format: LogFormat;
  readonly component: string;
  /** Where lines go (default: stderr). Tests pass a stream to capture them. */
  readonly stream?: NodeJS.WritableStream;
}

/** Replaces Error values (at the top level of the fields) with their serialised form. */
function serialise(fields: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!fields) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = v instanceof Error ? errorFields(v) : v;
  return out;
}

function wrap(w: winston.Logger): Logger {
  return {
    debug: (message, fields) => void w.debug(message, serialise(fields)),
    info: (message, fields) => void w.info(message, serialise(fields)),
    warn: (message, fields) => void w.warn(message, serialise(fields)),
    error: (message, fields) => void w.error(message, serialise(fields)),
    child: (fields) => wrap(w.child(serialise(fields))),
  };
}

export function createLogger(options: LoggingOptions): Logger {
  const format =
    options.format === 'json'
      ? winston.format.combine(winston.format.timestamp(), winston.format.json())
      : winston.format.combine(
          winston.format.timestamp(),
          winston.format.printf((info) => {
            const { level, message, timestamp, ...rest } = info;
            const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
            return `${String(timestamp)} ${level} ${String(message)}${extra}`;
          }),
        );
  const transport = options.stream
    ? new winston.transports.Stream({ stream: options.stream })
    : new winston.transports.Console({ stderrLevels: ['debug', 'info', 'warn', 'error'] });
  const w = winston.createLogger({
    level: options.level,
    format,
    transports: [transport],
  });
  // Not defaultMeta: winston lets defaultMeta override child fields, so every child's `component` would be lost.
  return wrap(w.child({ component: options.component }));
}
