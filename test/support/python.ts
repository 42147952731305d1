// Runs the independent python3-grpcio clients of test/python/ (Debian's python3-grpcio and python3-protobuf).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const PYTHON = '/usr/bin/python3';

/** True when /usr/bin/python3 has grpc and protobuf (.ci/run installs them). */
export const hasPythonGrpc =
  spawnSync(PYTHON, ['-c', 'import grpc, google.protobuf'], { stdio: 'ignore' }).status === 0;

/** The path of a script in test/python/. */
export function pythonScript(name: string): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../python', name);
}

/** Runs a script; each stdout line is parsed as JSON and passed to `onLine` as it arrives. */
export function runPython<L>(
  script: string,
  args: string[],
  onLine: (l: L) => void = () => {},
): Promise<{ code: number | null; lines: L[]; stderr: string }> {
  const child = spawn(PYTHON, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: L[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout }).on('line', (l) => {
    const parsed = JSON.parse(l) as L;
    lines.push(parsed);
    onLine(parsed);
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, lines, stderr })));
}

/** Polls a condition (event-driven progress in another process; no fixed sleeps in assertions). */
export async function waitFor(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
}
