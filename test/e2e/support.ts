// Shared helpers of the end-to-end suites: the CLI as a child process, polling waits, small HTTP GETs.
import { get } from 'node:http';
import path from 'node:path';
import { cliArgs, start, type Running } from '../support/process.ts';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

export async function waitFor(pred: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await pred()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

export type Child = Running;

/** A safety net: no end-to-end child outlives this, even if a test forgets to kill it. */
const CLI_TIMEOUT_MS = 5 * 60_000;

/** Runs `aeraki <args>` (from the sources, see cliArgs) in the repo root; kill() is a hard stop for cleanup. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Child {
  return start(process.execPath, cliArgs(args), CLI_TIMEOUT_MS, { ...process.env, ...env }, repoRoot);
}

/** The admin and RDS ports printed in the serve banner. */
export function bannerPorts(stdout: string): { admin: number; rds: number } | undefined {
  const admin = /admin on http:\/\/[^:]+:(\d+)/.exec(stdout)?.[1];
  const rds = /RDS \(gRPC[^)]*\) on [^\s]+:(\d+)/.exec(stdout)?.[1];
  return admin && rds ? { admin: Number(admin), rds: Number(rds) } : undefined;
}

/**
 * What /readyz's `config` check details on an API server without the Gateway API CRDs: the ambient inputs are read
 * whatever the flags (our own waypoints, issue 39), and a kind not served is read as empty and said so.
 */
export const GATEWAY_API_NOT_SERVED: readonly string[] = [
  'Gateway not served (gateways.gateway.networking.k8s.io): read as empty',
  'GatewayClass not served (gatewayclasses.gateway.networking.k8s.io): read as empty',
];
