// A real server run as a child process on a free loopback port, with a temporary data directory that survives a
// restart (the ZooKeeper and etcd test servers).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { start, type Running } from './process.ts';
import { waitForPort } from './tcp-relay.ts';

/** Throws `how` (what to install) when any of `files` is missing: such a test fails, it never skips. */
export function requireInstalled(files: readonly string[], how: string): void {
  const missing = files.filter((f) => !existsSync(f));
  if (missing.length > 0) throw new Error(`${missing.join(' and ')} missing: ${how}`);
}

export abstract class ServerProcess {
  private process: Running | undefined;
  protected readonly dir: string;
  port = 0;

  protected constructor(private readonly what: string) {
    this.dir = mkdtempSync(path.join(tmpdir(), `aeraki-${what}-`));
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Kills the server (SIGKILL, as a crash); the data directory stays for `restart`. */
  async kill(): Promise<void> {
    const p = this.process;
    this.process = undefined;
    if (!p) return;
    p.kill();
    await p.exited;
  }

  /** Starts it again on the same ports and data directory. */
  async restart(): Promise<void> {
    await this.kill();
    await this.run();
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Resolves once the server serves (after its port accepts connections); by default at once. */
  protected ready(): Promise<void> {
    return Promise.resolve();
  }

  protected abstract command(): { readonly cmd: string; readonly args: readonly string[] };

  /** Starts the process and resolves once its client port accepts connections. */
  protected async run(): Promise<void> {
    const { cmd, args } = this.command();
    const p = start(cmd, args, 30 * 60_000);
    this.process = p;
    let listening = false;
    const died = p.exited.then((code) => {
      if (!listening) throw new Error(`${this.what} exited (${code}) before listening: ${p.stderr}`);
    });
    died.catch(() => {});
    await Promise.race([
      waitForPort('127.0.0.1', this.port, 30_000, this.what)
        .then(() => this.ready())
        .then(() => {
          listening = true;
        }),
      died,
    ]);
  }
}
