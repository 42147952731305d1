// A real ZooKeeper server for tests: Debian's `zookeeper` package (the jars; `apt-get install zookeeper`), run as
// ZooKeeperServerMain in the foreground on a free loopback port with a temporary data directory. tickTime is 200 ms,
// so sessions may be as short as 400 ms (at most 4 s). A missing installation fails the test with the fix.
import { writeFileSync } from 'node:fs';
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
        '',
      ].join('\n'),
    );
    await server.run();
    return server;
  }

  protected command(): { cmd: string; args: string[] } {
    const main = 'org.apache.zookeeper.server.ZooKeeperServerMain';
    return { cmd: JAVA, args: ['-Xmx256m', '-cp', JAR, main, path.join(this.dir, 'zoo.cfg')] };
  }
}
