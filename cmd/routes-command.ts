/**
 * `aeraki routes`: runs the route watcher (src/tools/route-watcher.ts) and decides when the process ends.
 * Exit codes: 0 once `--once`/`--count` answers were printed (names an answer lacks are named on stderr), or on
 * SIGINT; 1 when, with `--once`/`--count`, no answer came within `--timeout` (none of the names is served, or the
 * server cannot be reached) or the server speaks the other protocol (TLS against `--insecure`, or the reverse).
 * Without `--once`/`--count` it watches until interrupted and only reports those conditions.
 */
import { readFileSync } from 'node:fs';
import { keepAliveClock } from '../src/util/clock.ts';
import { formatDurationMs, showAddress } from './parsers.ts';
import type { RoutesOptions } from './routes-config.ts';

const WRONG_PROTOCOL = {
  tls: 'speaks TLS, but this client is plaintext (--insecure): give --ca, --cert and --key instead',
  plaintext: 'speaks plaintext (a server run with --rds-insecure), but this client uses TLS: use --insecure',
} as const;

function namesOf(names: readonly string[]): string {
  return names.length === 1 ? `route ${names[0]} is not served` : `none of ${names.join(', ')} is served`;
}

/** A stream's end status on one line, without grpc-js's empty "Resolution note". */
function statusLine(status: { code: number; details: string }): string {
  const details = (status.details.split('\n')[0] ?? '').replace(/\.? *Resolution note: *$/, '');
  return `${status.code} ${details}`;
}

export async function runRoutes(names: readonly string[], o: RoutesOptions): Promise<void> {
  const { watchRoutes, formatAnswer } = await import('../src/tools/route-watcher.ts');
  const limit = o.once ? 1 : o.count;
  const address = showAddress(o.rdsAddress);
  const read = (file: string) => readFileSync(file);
  let seen = 0;
  let lastEnd = '';
  const stop = (code: number, error?: string): never => {
    watcher.close();
    if (error) process.stderr.write(`error: ${error}\n`);
    process.exit(code);
  };
  const watcher = watchRoutes({
    address,
    tls: o.insecure ? 'insecure' : { ca: read(o.ca), cert: read(o.cert), key: read(o.key) },
    names,
    delta: o.delta,
    ...(o.serverName ? { serverName: o.serverName } : {}),
    ...(o.serverSpiffeId ? { serverSpiffeId: o.serverSpiffeId } : {}),
    clock: keepAliveClock,
    noAnswerMs: o.timeoutMs,
    onAnswer: (answer) => {
      process.stdout.write(formatAnswer(answer, o.output));
      seen++;
      if (limit > 0 && seen >= limit) stop(0);
    },
    onNotServed: (missing) => {
      for (const n of missing) process.stderr.write(`route ${n} is not served by ${address}\n`);
    },
    onNoAnswer: (ms) => {
      if (limit > 0) return; // the --timeout below says it and exits
      process.stderr.write(`${namesOf(names)} by ${address} yet (no answer after ${formatDurationMs(ms)})\n`);
    },
    onWrongProtocol: (speaks) => {
      if (limit > 0) stop(1, `${address} ${WRONG_PROTOCOL[speaks]}`);
      process.stderr.write(`${address} ${WRONG_PROTOCOL[speaks]}; still retrying\n`);
    },
    onDisconnect: (status, retryMs) => {
      lastEnd = statusLine(status);
      process.stderr.write(`stream ended (${lastEnd}); reconnecting in ${formatDurationMs(retryMs)}\n`);
    },
  });
  if (limit > 0) {
    setTimeout(() => {
      if (seen > 0) return;
      const last = lastEnd === '' ? '' : `; the last stream ended with ${lastEnd}`;
      stop(1, `${namesOf(names)} by ${address} within ${formatDurationMs(o.timeoutMs)}${last}`);
    }, o.timeoutMs);
  }
  process.on('SIGINT', () => stop(0));
}
