// The misbehaving clients of `npm run bench -- rds-abuse`, in their own process (so their own work does not run
// on the server's event loop): `node --import tsx bench/rds-abuse-clients.ts PORT NEVER GARBAGE PINGERS`, with the
// client certificate in the environment (ABUSE_CA, ABUSE_CERT, ABUSE_KEY). Each client has its own connection:
// - never-send: opens a StreamRoutes stream and sends nothing;
// - garbage: sends random bytes as a request, and again on a new stream as soon as it is refused;
// - ping flood: pings as fast as the answers come, and reconnects 1 s after the server closes the connection
//   (the gRPC reconnect backoff's first step).
// Prints `ready` once every client is connected, then one JSON line of counts when told `stop` on stdin.
import { randomBytes } from 'node:crypto';
import * as http2 from 'node:http2';
import { createInterface } from 'node:readline';
import * as grpc from '@grpc/grpc-js';
import { rdsRawClientDefinition } from '../src/tools/rds-codec.ts';

const [port, never, garbage, pingers] = process.argv.slice(2).map(Number) as [number, number, number, number];
const tls = {
  ca: Buffer.from(process.env['ABUSE_CA'] ?? ''),
  cert: Buffer.from(process.env['ABUSE_CERT'] ?? ''),
  key: Buffer.from(process.env['ABUSE_KEY'] ?? ''),
};
const Client = grpc.makeGenericClientConstructor(rdsRawClientDefinition, 'RouteDiscoveryService');
const creds = grpc.credentials.createSsl(tls.ca, tls.key, tls.cert);
const counts = { garbageRefused: 0, goaways: 0, pings: 0, neverSendEnded: 0 };
let stopping = false;

type Raw = grpc.ClientDuplexStream<Buffer, Buffer>;
const channels: grpc.Client[] = [];
const sessions = new Set<http2.ClientHttp2Session>();

function channel(): grpc.Client {
  const c = new Client(`localhost:${port}`, creds, { 'grpc.use_local_subchannel_pool': 1 });
  channels.push(c);
  return c;
}

function call(c: grpc.Client): Raw {
  return (c as unknown as Record<string, () => Raw>).StreamRoutes!.call(c);
}

/** Resolves once the channel is connected (the first stream's headers went out). */
function connected(c: grpc.Client): Promise<void> {
  return new Promise((resolve, reject) =>
    c.waitForReady(Date.now() + 30_000, (err) => (err ? reject(err) : resolve())),
  );
}

function neverSend(): Promise<void> {
  const c = channel();
  const s = call(c);
  s.on('error', () => {});
  s.on('status', () => counts.neverSendEnded++);
  return connected(c);
}

function garbageLoop(c: grpc.Client): void {
  if (stopping) return;
  const s = call(c);
  s.on('error', () => {});
  s.on('status', () => {
    counts.garbageRefused++;
    garbageLoop(c);
  });
  s.write(randomBytes(64));
}

function sendGarbage(): Promise<void> {
  const c = channel();
  garbageLoop(c);
  return connected(c);
}

function pingFlood(): Promise<void> {
  return new Promise((resolve) => {
    const session = http2.connect(`https://localhost:${port}`, tls);
    sessions.add(session);
    session.on('error', () => {});
    const ping = () => {
      if (stopping || session.destroyed || session.closed) return;
      session.ping((err) => {
        if (err) return;
        counts.pings++;
        ping();
      });
    };
    session.once('connect', () => {
      resolve();
      ping();
    });
    session.on('goaway', () => counts.goaways++);
    session.on('close', () => {
      sessions.delete(session);
      if (!stopping) setTimeout(() => void pingFlood(), 1000);
    });
  });
}

await Promise.all([
  ...Array.from({ length: never }, neverSend),
  ...Array.from({ length: garbage }, sendGarbage),
  ...Array.from({ length: pingers }, pingFlood),
]);
console.log('ready');
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'stop') return;
  stopping = true;
  console.log(JSON.stringify(counts));
  for (const c of channels) c.close();
  for (const s of sessions) s.destroy();
  process.exit(0);
});
