// An RDS server in a process of its own, so a test can measure the memory it holds (RSS) while a client
// attacks it. Started with child_process.fork (IPC): argv[2] is a TLS directory (writeCertDir), argv[3] the
// limits as JSON. It sends `{ port }` once it listens and answers every message with `memoryState()`.
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { RdsServer, type HeldState } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { metaRouter, serviceEntry, storeOf } from './builders.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';

export const SERVED_HOST = 'served.example';
export const SERVED_ROUTE = `${SERVED_HOST}_20880`;

/** What the parent asks for: the process's memory and what the server holds per stream. */
export interface MemoryState {
  /** Resident set size now and its peak since start (bytes). */
  readonly rss: number;
  readonly maxRss: number;
  readonly heapUsed: number;
  readonly streamsActive: number;
  readonly held: HeldState;
  readonly refused: Record<string, number>;
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
}

async function main(): Promise<void> {
  const [dir, limitsJson] = process.argv.slice(2);
  const f = (n: string) => path.join(dir!, n);
  const cache = new SnapshotCache();
  cache.setRoutes(
    buildRouteConfigurations(
      storeOf([
        serviceEntry('ns', 'served', {
          hosts: [SERVED_HOST],
          ports: [{ number: 20880, name: 'tcp-metaprotocol-x' }],
        }),
        metaRouter('ns', 'mr', {
          hosts: [SERVED_HOST],
          routes: [
            {
              name: 'r',
              route: [{ destination: { host: SERVED_HOST } }],
              requestMutation: [],
              responseMutation: [],
            },
          ],
        }),
      ]),
    ).routes,
  );
  const server = new RdsServer(
    {
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      tls: {
        caFile: f('ca.crt'),
        certFile: f('server.crt'),
        keyFile: f('server.key'),
        pollIntervalMs: 600_000,
      },
      limits: JSON.parse(limitsJson ?? '{}') as Record<string, number>,
    },
    cache,
  );
  const port = await server.start();

  const state = (collect: boolean): MemoryState => {
    if (collect) gc();
    const m = process.memoryUsage();
    return {
      rss: m.rss,
      maxRss: peakRss(),
      heapUsed: m.heapUsed,
      streamsActive: server.metrics.streamsActive,
      held: server.heldState(),
      refused: Object.fromEntries(server.metrics.refused),
    };
  };
  process.on('message', (msg: { gc?: boolean; stop?: boolean }) => {
    if (msg.stop) {
      void server.stop().then(() => process.exit(0));
      return;
    }
    process.send!(state(msg.gc === true));
  });
  process.send!({ port, ...state(true) });
}

// Imported by the test for its constants: serve only when run as the child.
if (process.argv[1] === fileURLToPath(import.meta.url)) void main();

/**
 * This process's peak resident set size (bytes): the high-water mark of its own address space (`VmHWM`, proc(5)).
 * Not `process.resourceUsage().maxRSS`: Linux carries `ru_maxrss` across execve, so a forked child starts with the
 * resident size its parent had at the fork (a test runner of 600 MB made this server's peak read 560 MB where it
 * never passed 240 MB). Falls back to maxRSS where /proc is absent.
 */
function peakRss(): number {
  try {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb !== undefined) return Number(kb) * 1024;
  } catch {
    // no /proc: the portable figure below
  }
  return process.resourceUsage().maxRSS * 1024;
}
