// A real ZooKeeper server for tests: Debian's `zookeeper` package (the jars; `apt-get install zookeeper`), run as
// ZooKeeperServerMain in the foreground on a free loopback port with a temporary data directory. tickTime is 200 ms,
// so sessions may be as short as 400 ms (at most 4 s). A missing installation fails the test with the fix.
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { requireInstalled, ServerProcess } from './server-process.ts';
import { freePort } from './tcp-relay.ts';

const JAR = '/usr/share/java/zookeeper.jar';
const JAVA = '/usr/bin/java';

export class ZooKeeperServer extends ServerProcess {
  private constructor() {
    super('zookeeper');
  }

  static async start(): Promise<ZooKeeperServer> {
    requireInstalled(
      [JAR, JAVA],
      'the ZooKeeper tests need a real ZooKeeper server: `apt-get install zookeeper` (the jars, not zookeeperd)',
    );
    const server = new ZooKeeperServer();
    server.port = await freePort();
    writeFileSync(
      path.join(server.dir, 'zoo.cfg'),
      [
        'tickTime=200',
        `dataDir=${path.join(server.dir, 'data')}`,
        `clientPort=${server.port}`,
        'clientPortAddress=127.0.0.1',
        'admin.enableServer=false',
        'minSessionTimeout=400',
        'maxSessionTimeout=4000',
        '4lw.commands.whitelist=srvr',
        '',
      ].join('\n'),
    );
    await server.run();
    return server;
  }

  /**
   * A starting server accepts connections before it serves, and a client connecting then may wait forever: ready
   * means the four-letter command `srvr` reports the standalone mode.
   */
  protected override async ready(): Promise<void> {
    const deadline = Date.now() + 30_000;
    let last = '';
    while (Date.now() < deadline) {
      last = await fourLetterWord(this.port, 'srvr').catch((err: unknown) => String(err));
      if (last.includes('Mode: standalone')) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`ZooKeeper on port ${this.port} does not serve within 30 s: ${last}`);
  }

  protected command(): { cmd: string; args: string[] } {
    const main = 'org.apache.zookeeper.server.ZooKeeperServerMain';
    return { cmd: JAVA, args: ['-Xmx256m', '-cp', JAR, main, path.join(this.dir, 'zoo.cfg')] };
  }
}

/** Sends a four-letter command and returns everything the server answers before it closes the connection. */
function fourLetterWord(port: number, word: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(word));
    let answer = '';
    socket.setTimeout(2_000, () => socket.destroy(new Error('no answer')));
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    socket.on('close', () => resolve(answer)).on('error', reject);
  });
}
