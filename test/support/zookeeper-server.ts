// A real ZooKeeper server for tests: Debian's `zookeeper` package (the jars; `apt-get install zookeeper`), run as
// ZooKeeperServerMain in the foreground on a free loopback port with a temporary data directory. tickTime is 200 ms,
// so sessions may be as short as 400 ms (at most 4 s). A missing installation fails the test with the fix.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { start, type Running } from './process.ts';
import { freePort, waitForPort } from './tcp-relay.ts';

const JAR = '/usr/share/java/zookeeper.jar';
const JAVA = '/usr/bin/java';

export class ZooKeeperServer {
  private process: Running | undefined;
  private readonly dir: string;
  port = 0;

  private constructor() {
    this.dir = mkdtempSync(path.join(tmpdir(), 'aeraki-zk-'));
  }

  /** Starts a server; throws with the install command when ZooKeeper or Java is missing. */
  static async start(): Promise<ZooKeeperServer> {
    if (!existsSync(JAR) || !existsSync(JAVA)) {
      throw new Error(
        `the ZooKeeper tests need a real ZooKeeper server: ${JAR} and ${JAVA} are missing; ` +
          'install them with `apt-get install zookeeper` (Debian; the jars only, not zookeeperd)',
      );
    }
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

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Stops the server process (SIGKILL, as a crash); the data directory stays for `restart`. */
  async kill(): Promise<void> {
    const p = this.process;
    this.process = undefined;
    if (!p) return;
    p.kill();
    await p.exited;
  }

  /** Starts it again on the same port and data directory (sessions and persistent nodes survive). */
  async restart(): Promise<void> {
    await this.kill();
    await this.run();
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async run(): Promise<void> {
    this.process = start(
      JAVA,
      [
        '-Xmx256m',
        '-cp',
        JAR,
        'org.apache.zookeeper.server.ZooKeeperServerMain',
        path.join(this.dir, 'zoo.cfg'),
      ],
      30 * 60_000,
    );
    const p = this.process;
    let listening = false;
    const died = p.exited.then((code) => {
      if (!listening) throw new Error(`ZooKeeper exited (${code}) before listening: ${p.stderr}`);
    });
    died.catch(() => {});
    await Promise.race([
      waitForPort('127.0.0.1', this.port, 30_000, 'ZooKeeper').then(() => {
        listening = true;
      }),
      died,
    ]);
  }
}
