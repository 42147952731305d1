// Debian's chromium, headless, for the tests of pages: found on PATH, run once per question (the DOM after the
// script ran, a screenshot), or driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages
// ended by NUL, commands on fd 3, answers on fd 4) to measure a layout at a given viewport.
import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** `chromium` on PATH, or undefined. */
export function findChromium(): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    const file = path.join(dir, 'chromium');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** Flags of every run: headless, no sandbox (root in CI containers), a profile of its own under `tmp`. */
function baseFlags(tmp: string): string[] {
  const profile = mkdtempSync(path.join(tmp, 'chromium-profile-'));
  return ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${profile}`];
}

/** Runs chromium on `url` with `args` (e.g. `--dump-dom`) and a virtual time budget for fetches; its stdout. */
export async function chromiumRun(chromium: string, tmp: string, url: string, args: readonly string[]) {
  const flags = [...baseFlags(tmp), '--hide-scrollbars', '--virtual-time-budget=5000', ...args, url];
  const { stdout } = await run(chromium, flags, { timeout: 30_000, maxBuffer: 16 << 20 });
  return stdout;
}

/** What `expression` (may be a promise) gives once `url` is loaded in a `width` x `height` mobile viewport. */
export async function evaluateAt(
  chromium: string,
  tmp: string,
  url: string,
  viewport: { readonly width: number; readonly height: number },
  expression: string,
): Promise<unknown> {
  const child = spawn(chromium, [...baseFlags(tmp), '--remote-debugging-pipe', 'about:blank'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
  });
  const toChrome = child.stdio[3] as Writable;
  const fromChrome = child.stdio[4] as Readable;
  const waiting = new Map<number, { resolve(v: any): void; reject(e: Error): void }>();
  let buffer = '';
  fromChrome.setEncoding('utf8');
  fromChrome.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\0'); end >= 0; end = buffer.indexOf('\0')) {
      const msg = JSON.parse(buffer.slice(0, end)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
      };
      buffer = buffer.slice(end + 1);
      const w = msg.id === undefined ? undefined : waiting.get(msg.id);
      if (!w) continue;
      waiting.delete(msg.id!);
      if (msg.error) w.reject(new Error(`chromium: ${msg.error.message}`));
      else w.resolve(msg.result);
    }
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  void exited.then(() => {
    for (const w of waiting.values()) w.reject(new Error('chromium exited'));
  });
  let nextId = 0;
  const send = (method: string, params: object = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      waiting.set(id, { resolve, reject });
      toChrome.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  try {
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
    await send(
      'Emulation.setDeviceMetricsOverride',
      { ...viewport, deviceScaleFactor: 1, mobile: true },
      sessionId,
    );
    await send('Page.navigate', { url }, sessionId);
    const answer = await send(
      'Runtime.evaluate',
      { expression, awaitPromise: true, returnByValue: true },
      sessionId,
    );
    if (answer.exceptionDetails) throw new Error(`chromium: ${JSON.stringify(answer.exceptionDetails)}`);
    return answer.result.value as unknown;
  } finally {
    clearTimeout(timer);
    child.kill();
    await exited;
  }
}
