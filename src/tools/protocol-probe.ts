/**
 * What a gRPC server speaks, for the route watcher's "wrong protocol" notice: a plaintext client against a TLS server
 * (or the reverse) only ever sees UNAVAILABLE from grpc-js, so the watcher asks the server directly.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';

/** `tls`: it completed (or answered) a TLS handshake; `plaintext`: it answered an HTTP/2 preface in the clear. */
export type ServerProtocol = 'tls' | 'plaintext' | 'unknown';

interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** `host:port` or `[v6]:port`. */
function splitAddress(address: string): HostPort | undefined {
  const colon = address.lastIndexOf(':');
  const port = Number(address.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(port)) return undefined;
  return { host: address.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port };
}

/** A TLS handshake without verification: a ServerHello (or a TLS alert after ours) means the server speaks TLS. */
function speaksTls(to: HostPort, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect({ ...to, rejectUnauthorized: false, ALPNProtocols: ['h2'] });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('secureConnect', () => done(true));
    socket.on('error', (err: NodeJS.ErrnoException) => done(/_ALERT_/.test(err.code ?? '')));
    socket.on('close', () => done(false));
  });
}

const H2_PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]), // an empty SETTINGS frame
]);
const FRAME_TYPE_SETTINGS = 4;

/** The HTTP/2 client preface in the clear: a SETTINGS frame back means a plaintext HTTP/2 (h2c) server. */
function speaksH2c(to: HostPort, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(to, () => socket.write(H2_PREFACE));
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('data', (b: Buffer) => done(b.length >= 9 && b[3] === FRAME_TYPE_SETTINGS));
    socket.on('error', () => done(false));
    socket.on('close', () => done(false));
  });
}

/** Asks `address` (`host:port`) what it speaks; `unknown` when it is down or answers neither. Never rejects. */
export async function probeServerProtocol(address: string, timeoutMs = 2000): Promise<ServerProtocol> {
  const to = splitAddress(address);
  if (!to) return 'unknown';
  if (await speaksTls(to, timeoutMs)) return 'tls';
  if (await speaksH2c(to, timeoutMs)) return 'plaintext';
  return 'unknown';
}
