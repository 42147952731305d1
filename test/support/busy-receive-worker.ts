// A real MCP receive worker (it owns the stream to istiod and reads the answers) that can be told to be busy for a
// while, so answers arriving meanwhile wait in its socket and are read together: what happens when the worker is
// behind istiod (large answers, a slow machine). The busy listener is added once the worker's module is loaded: a
// listener on the port starts it, and messages that came before the worker's own listener would be lost.
import { Worker } from 'node:worker_threads';
import { receiveWorkerUrl, type SpawnReceiveWorker } from '../../src/controller/mcp/receiver.ts';

export interface BusyWorkers {
  readonly spawn: SpawnReceiveWorker;
  /** Keeps the current worker's thread busy for `ms` (a busy loop: nothing it receives is read meanwhile). */
  busy(ms: number): void;
}

export function busyReceiveWorkers(): BusyWorkers {
  let current: Worker | undefined;
  const spawn: SpawnReceiveWorker = (init) => {
    const tsx = import.meta.resolve('tsx/esm/api');
    const url = receiveWorkerUrl().href;
    const boot =
      `const { parentPort } = require('node:worker_threads');` +
      `const busy = (m) => { if (m && m.type === 'test-busy') { const until = Date.now() + m.ms; while (Date.now() < until); } };` +
      `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(url)}); })` +
      `.then(() => parentPort.on('message', busy));`;
    current = new Worker(boot, { eval: true, workerData: init, name: 'mcp-receive' });
    return current;
  };
  return { spawn, busy: (ms) => current?.postMessage({ type: 'test-busy', ms }) };
}
