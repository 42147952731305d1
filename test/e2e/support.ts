// Shared helpers of the end-to-end suites: the CLI as a child process, polling waits, small HTTP GETs.
import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import path from 'node:path';

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

export interface Child {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  kill(): void;
}

/** Runs `node bin/aeraki.js <args>` from the repo root; kill() is a hard stop for cleanup. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Child {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/aeraki.js'), ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const c: Child = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code))),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (c.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (c.stderr += d));
  return c;
}

/** The admin and RDS ports printed in the serve banner. */
export function bannerPorts(stdout: string): { admin: number; rds: number } | undefined {
  const admin = /admin on http:\/\/[^:]+:(\d+)/.exec(stdout)?.[1];
  const rds = /RDS \(gRPC[^)]*\) on [^\s]+:(\d+)/.exec(stdout)?.[1];
  return admin && rds ? { admin: Number(admin), rds: Number(rds) } : undefined;
}
