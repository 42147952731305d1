// The misbehaving clients of `npm run bench -- rds-abuse`, in their own process (so their own work does not run
// on the server's event loop): `node --import tsx bench/rds-abuse-clients.ts PORT NEVER GARBAGE PINGERS`, with the
// client certificate in the environment (ABUSE_CA, ABUSE_CERT, ABUSE_KEY). Each client has its own connection:
// - never-send: opens a StreamRoutes stream and sends nothing;
// - garbage: sends random bytes as a request and, 1 s after each refusal (the retry backoff of gRPC clients and
//   Envoy), again on a new stream; the server closes the connection after a few refusals, and it reconnects;
// - ping flood: pings as fast as the answers come, and reconnects 1 s after the server closes the connection
//   (the first step of gRPC's reconnect backoff).
// Commands on stdin: `pause` (streams cancelled, no pings, no garbage; connections stay, idle), `resume`, `stop`
// (prints one JSON line of counts and exits; so does a closed stdin, without the line). Prints `ready` once every
// client is connected and active.
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
const counts = { garbageRefused: 0, garbageOther: 0, goaways: 0, pings: 0 };
let active = true;

type Raw = grpc.ClientDuplexStream<Buffer, Buffer>;
const channels: grpc.Client[] = [];
const sessions = new Set<http2.ClientHttp2Session>();
/** What each client does when resumed. */
const resumers: (() => void)[] = [];
const idleCalls = new Set<Raw>();

function channel(): grpc.Client {
  const c = new Client(`localhost:${port}`, creds, { 'grpc.use_local_subchannel_pool': 1 });
  channels.push(c);
  return c;
}

function call(c: grpc.Client): Raw {
  const s = (c as unknown as Record<string, () => Raw>).StreamRoutes!.call(c);
  s.on('error', () => {});
  return s;
}

function connected(c: grpc.Client): Promise<void> {
  return new Promise((resolve, reject) =>
    c.waitForReady(Date.now() + 60_000, (err) => (err ? reject(err) : resolve())),
  );
}

function neverSend(): Promise<void> {
  const c = channel();
  const open = () => idleCalls.add(call(c));
  resumers.push(open);
  open();
  return connected(c);
}

function sendGarbage(): Promise<void> {
  const c = channel();
  let waiting = false;
  const loop = (): void => {
    if (!active || waiting) return;
    waiting = true;
    const s = call(c);
    s.on('status', (status: grpc.StatusObject) => {
      if (status.code === grpc.status.INVALID_ARGUMENT) counts.garbageRefused++;
      else counts.garbageOther++;
      setTimeout(() => {
        waiting = false;
        loop();
      }, 1000);
    });
    s.write(randomBytes(64));
  };
  resumers.push(loop);
  loop();
  return connected(c);
}

/**
 * One ping-flooding client. Resolves once a connection of this client is up: the first, or, when the server closed
 * that one before it was (the per-source handshake cap, src/util/handshake-guard.ts), the first reconnect that is.
 */
function pingFlood(): Promise<void> {
  return new Promise((resolve) => {
    let up = false;
    const session = http2.connect(`https://localhost:${port}`, tls);
    sessions.add(session);
    session.on('error', () => {});
    const ping = (): void => {
      if (!active || session.destroyed || session.closed) return;
      session.ping((err) => {
        if (err) return;
        counts.pings++;
        ping();
      });
    };
    resumers.push(ping);
    session.once('connect', () => {
      up = true;
      resolve();
      ping();
    });
    session.on('goaway', () => counts.goaways++);
    session.on('close', () => {
      sessions.delete(session);
      resumers.splice(resumers.indexOf(ping), 1);
      // Reconnect 1 s later; while paused, when resumed.
      const reconnect = (): void => {
        if (active) setTimeout(() => void pingFlood().then(up ? undefined : resolve), 1000);
        else resumers.push(once(reconnect));
      };
      reconnect();
    });
  });
}

/** `fn` as a resumer that removes itself when it runs. */
function once(fn: () => void): () => void {
  const r = (): void => {
    resumers.splice(resumers.indexOf(r), 1);
    fn();
  };
  return r;
}

// Connected 32 at a time: every client here comes from 127.0.0.1, and the server lets at most 64 connections of one
// source be in their handshake at once (DEFAULT_HANDSHAKE_LIMITS); 200 real misbehaving clients come from as many
// addresses. (Started all at once, the refused ping flooders of the first version never said they were up, and the
// benchmark waited for `ready` until its time limit.)
const starts = [
  ...Array.from({ length: never }, () => neverSend),
  ...Array.from({ length: garbage }, () => sendGarbage),
  ...Array.from({ length: pingers }, () => pingFlood),
];
for (let i = 0; i < starts.length; i += 32)
  await Promise.all(starts.slice(i, i + 32).map((start) => start()));
console.log('ready');
const commands = createInterface({ input: process.stdin });
// The bench process is gone (or gave up on its benchmark): nothing is left to measure.
commands.on('close', () => process.exit(0));
commands.on('line', (line) => {
  const command = line.trim();
  if (command === 'pause') {
    active = false;
    for (const s of idleCalls) s.cancel();
    idleCalls.clear();
  } else if (command === 'resume') {
    active = true;
    for (const r of [...resumers]) r();
  } else if (command === 'stop') {
    console.log(JSON.stringify(counts));
    for (const c of channels) c.close();
    for (const s of sessions) s.destroy();
    process.exit(0);
  }
});
