// A TCP relay on a loopback port in front of a real server, so a test can cut a client's connection: `cut()` resets
// every relayed connection and resets new ones at once (the client sees its connection drop, as when a network
// partition is noticed), until `restore()`.
import net from 'node:net';

export class TcpRelay {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private isCut = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.server = net.createServer((client) => this.relay(client));
  }

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  cut(): void {
    this.isCut = true;
    for (const s of this.sockets) s.resetAndDestroy();
    this.sockets.clear();
  }

  restore(): void {
    this.isCut = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: net.Socket): void {
    if (this.isCut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(this.targetPort, this.targetHost);
    const pair = [client, upstream];
    const end = (): void => {
      for (const s of pair) {
        s.destroy();
        this.sockets.delete(s);
      }
    };
    for (const s of pair) {
      this.sockets.add(s);
      s.on('error', end).on('close', end);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}

/** A free loopback port (bound and released; good enough for a server started right after). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once `host:port` accepts a TCP connection; rejects after `timeoutMs`. */
export async function waitForPort(
  host: string,
  port: number,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, host);
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline)
      throw new Error(`${what} did not listen on ${host}:${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
