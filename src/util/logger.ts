/**
 * The logger every component receives (winston underneath, see util/logging.ts). Fields are structured; pass
 * errors through `errorFields` (winston prints a nested Error as `{}`).
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function errorFields(err: unknown): Record<string, unknown> {
  if (err instanceof Error) {
    const out: Record<string, unknown> = { error: err.message, errorName: err.name };
    if (err.stack) out['stack'] = err.stack;
    if (err.cause !== undefined) out['cause'] = errorFields(err.cause);
    return out;
  }
  return { error: String(err) };
}

/** A logger that drops everything (tests, render). */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
