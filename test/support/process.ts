// Runs a child process (a real client such as kubectl or python3, or the CLI) with a hard timeout; never blocks
// the event loop (fake servers live in this process).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Running {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves on exit (code, or null when killed). */
  exited: Promise<number | null>;
  /** Resolves when stdout contains `text`; rejects on exit without it or after `ms`. */
  waitFor(text: string, ms: number): Promise<void>;
  kill(): void;
}

export function start(
  cmd: string,
  args: readonly string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): Running {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env, cwd });
  const r: Running = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code))),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    waitFor: (text, ms) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          if (!r.stdout.includes(text)) return false;
          cleanup();
          resolve();
          return true;
        };
        const onExit = (): void => {
          if (check()) return;
          cleanup();
          reject(
            new Error(`${cmd} exited without printing ${text}; stdout: ${r.stdout} stderr: ${r.stderr}`),
          );
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${cmd}: no ${text} within ${ms} ms; stdout: ${r.stdout} stderr: ${r.stderr}`));
        }, ms);
        const cleanup = (): void => {
          clearTimeout(timer);
          child.stdout?.off('data', check);
          child.off('close', onExit);
        };
        if (check()) return;
        child.stdout?.on('data', check);
        child.on('close', onExit);
      }),
  };
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (r.stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (r.stderr += d));
  const hard = setTimeout(() => r.kill(), timeoutMs);
  void r.exited.then(() => clearTimeout(hard));
  return r;
}

/** Runs to completion (killed after `timeoutMs`). */
export async function run(
  cmd: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = start(cmd, args, timeoutMs);
  const code = await r.exited;
  return { code, stdout: r.stdout, stderr: r.stderr };
}

/** The first existing path among the candidates, else the bare name (resolved through PATH). */
export function binary(...candidates: string[]): string {
  return candidates.find((c) => c.startsWith('/') && existsSync(c)) ?? candidates.at(-1)!;
}

const CLI_SOURCE = fileURLToPath(new URL('../../cmd/aeraki.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

/**
 * Node's arguments that run `aeraki <args>` from the sources (through tsx), so that tests never run a stale
 * dist/; bin/aeraki.js runs the build and is checked by .ci/run. `preload` adds `--import` modules before it.
 */
export function cliArgs(args: readonly string[], preload: readonly string[] = []): string[] {
  return ['--import', TSX, ...preload.flatMap((m) => ['--import', m]), CLI_SOURCE, ...args];
}
