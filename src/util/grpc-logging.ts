/**
 * grpc-js writes its own log lines (`E No address added out of total 1 resolved`) straight to stderr, at the
 * verbosity of GRPC_VERBOSITY (default ERROR). routeGrpcLogs sends them through the project's Logger instead, with
 * `component: grpc`: errors at warn, except those a caller turns into its own error (a failed bind, reported as
 * "cannot serve RDS on ...: choose another --rds-address"), which go to debug like grpc-js's info and debug lines.
 */
import { format } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from './logger.ts';

/** grpc-js errors that reach a caller as a rejected promise too, so the caller reports them. */
const REPORTED_BY_CALLER = [/^No address added out of total \d+ resolved/];

/** Replaces grpc-js's process-wide logger; the last call wins. */
export function routeGrpcLogs(logger: Logger): void {
  const log = logger.child({ component: 'grpc' });
  const text = (message: unknown, rest: unknown[]) => format(message, ...rest);
  grpc.setLogger({
    error: (message: unknown, ...rest: unknown[]) => {
      const line = text(message, rest);
      if (REPORTED_BY_CALLER.some((r) => r.test(line))) log.debug(line);
      else log.warn(line);
    },
    info: (message: unknown, ...rest: unknown[]) => log.debug(text(message, rest)),
    debug: (message: unknown, ...rest: unknown[]) => log.debug(text(message, rest)),
  });
}
