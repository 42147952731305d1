// The parent's side of test/support/rds-memory-server.ts: forks the RDS server with the default limits in a
// process of its own (so its RSS is the server's alone) and asks it for its memory state.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CertDir } from '../fakes/test-ca.ts';
import type { MemoryState } from './rds-memory-server.ts';

const SERVER = fileURLToPath(new URL('./rds-memory-server.ts', import.meta.url));

/** The child server: its port and its state on request (after a full GC with `gc`). */
export class MemoryServer {
  private child: ChildProcess | undefined;
  port = 0;
  start!: MemoryState;

  async run(certs: CertDir): Promise<void> {
    this.child = fork(SERVER, [certs.dir, '{}'], {
      execArgv: ['--import', 'tsx', '--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const first = await this.reply<MemoryState & { port: number }>(30_000);
    this.port = first.port;
    this.start = first;
  }

  state(gc: boolean): Promise<MemoryState> {
    const r = this.reply<MemoryState>(10_000);
    this.child!.send({ gc });
    return r;
  }

  stop(): void {
    if (this.child && this.child.exitCode === null) this.child.kill('SIGKILL');
  }

  private reply<T>(ms: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the RDS server did not answer within ${ms} ms`)), ms);
      this.child!.once('message', (m) => {
        clearTimeout(timer);
        resolve(m as T);
      });
    });
  }
}
