// The unit tier's guard, imported first by test/unit.test.ts: a unit suite that starts a server, opens a socket or
// spawns a process fails there, naming the call, instead of slowing the edit-test loop. The static rule of
// test/tiers/classify.ts decides membership; this catches what reading the imports cannot see (a src/ entry point
// that listens).
import childProcess from 'node:child_process';
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';

function refuse(what: string): never {
  throw new Error(`unit tier: ${what} is not allowed here; the suite belongs to the full tier (npm test)`);
}

net.Server.prototype.listen = function listen(): never {
  refuse('net.Server.listen (a real server)');
};
net.Socket.prototype.connect = function connect(): never {
  refuse('net.Socket.connect (a real socket)');
};
// spawn, exec, execFile and fork all start through ChildProcess.prototype.spawn (not in the typings).
Object.assign(childProcess.ChildProcess.prototype, { spawn: () => refuse('spawning a process') });
for (const name of ['spawnSync', 'execSync', 'execFileSync'] as const) {
  Object.assign(childProcess, { [name]: () => refuse(`child_process.${name}`) });
}
syncBuiltinESMExports();
