// A real etcd server for tests: Debian's `etcd-server` package (`/usr/bin/etcd`), one member on free loopback
// ports with a temporary data directory. A missing installation fails the test with the fix.
import path from 'node:path';
import { requireInstalled, ServerProcess } from './server-process.ts';
import { freePort } from './tcp-relay.ts';

const ETCD = '/usr/bin/etcd';

export class EtcdServer extends ServerProcess {
  private peerPort = 0;

  private constructor() {
    super('etcd');
  }

  static async start(): Promise<EtcdServer> {
    requireInstalled([ETCD], 'the etcd tests need a real etcd server: `apt-get install etcd-server`');
    const server = new EtcdServer();
    server.port = await freePort();
    server.peerPort = await freePort();
    await server.run();
    return server;
  }

  protected command(): { cmd: string; args: string[] } {
    const client = `http://127.0.0.1:${this.port}`;
    const peer = `http://127.0.0.1:${this.peerPort}`;
    return {
      cmd: ETCD,
      args: [
        '--name=test',
        `--data-dir=${path.join(this.dir, 'data')}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=test=${peer}`,
        '--log-level=error',
      ],
    };
  }
}
