import zookeeper from 'node-zookeeper-client';
import type { Client, Event } from 'node-zookeeper-client';

/**
 * Promise forms of the node-zookeeper-client reads a watcher needs. A missing node is `undefined`, not an error;
 * every other failure rejects. The watcher function, when given, is registered only when the read succeeds
 * (the server sets no child or data watch on a missing node; `exists` sets one either way).
 */

export type ZkClient = Client;
export type ZkEvent = Event;

export const { State: ZkState, CreateMode, Exception: ZkException } = zookeeper;

export function createZkClient(
  servers: readonly string[],
  sessionTimeoutMs: number,
  spinDelayMs: number,
): Client {
  return zookeeper.createClient(servers.join(','), {
    sessionTimeout: sessionTimeoutMs,
    spinDelay: spinDelayMs,
    retries: 0,
  });
}

/** node-zookeeper-client's Exception inherits from Error at run time; its typings do not say so. */
export function asError(err: Error | zookeeper.Exception): Error {
  return err as Error;
}

/** node-zookeeper-client 1.1.3's connection manager, as far as this file reaches into it. */
interface ConnectionManager {
  socket?: { destroy(): void };
  connect?: () => void;
}

function connectionManager(client: Client): ConnectionManager | undefined {
  return (client as unknown as { connectionManager?: ConnectionManager }).connectionManager;
}

/**
 * Closes a client without tripping node-zookeeper-client 1.1.3: closing it while it connects makes it read the
 * server's connect answer as a reply and throw from its socket handler (an uncaught exception). A client with no
 * session stops trying instead (its connection manager's reconnect is disabled and its socket dropped), and is
 * closed properly should an attempt already under way still succeed.
 */
export function closeClient(client: Client): void {
  const state = client.getState();
  if (state === zookeeper.State.SYNC_CONNECTED || state === zookeeper.State.CONNECTED_READ_ONLY) {
    client.close();
    return;
  }
  client.once('connected', () => client.close());
  const manager = connectionManager(client);
  if (!manager) return;
  manager.connect = () => {};
  manager.socket?.destroy();
}

/**
 * Drops the client's current connection attempt so that it makes a new one (node-zookeeper-client 1.1.3 has no read
 * timeout: a connection that a starting server accepted but never answers would wait forever). Reaches into the
 * client's connection manager; a no-op if its shape differs.
 */
export function retryConnection(client: Client): void {
  connectionManager(client)?.socket?.destroy();
}

function isNoNode(err: unknown): boolean {
  return err instanceof zookeeper.Exception && err.getCode() === zookeeper.Exception.NO_NODE;
}

/** True for the failures a reconnect (or a new session) fixes by itself. */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof zookeeper.Exception)) return false;
  const code = err.getCode();
  return code === zookeeper.Exception.CONNECTION_LOSS || code === zookeeper.Exception.SESSION_EXPIRED;
}

export function getChildren(
  client: Client,
  path: string,
  watcher: ((event: Event) => void) | undefined,
): Promise<string[] | undefined> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | zookeeper.Exception | null, children: string[]): void => {
      if (err) return isNoNode(err) ? resolve(undefined) : reject(asError(err));
      resolve(children);
    };
    if (watcher) client.getChildren(path, watcher, done);
    else client.getChildren(path, done);
  });
}

export function getData(
  client: Client,
  path: string,
  watcher: ((event: Event) => void) | undefined,
): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | zookeeper.Exception | null, data: Buffer | undefined): void => {
      if (err) return isNoNode(err) ? resolve(undefined) : reject(asError(err));
      resolve(data ?? Buffer.alloc(0));
    };
    if (watcher) client.getData(path, watcher, done);
    else client.getData(path, done);
  });
}

export function exists(
  client: Client,
  path: string,
  watcher: ((event: Event) => void) | undefined,
): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | zookeeper.Exception | null, stat: unknown): void => {
      if (err) return reject(asError(err));
      resolve(stat !== null && stat !== undefined);
    };
    if (watcher) client.exists(path, watcher, done);
    else client.exists(path, done);
  });
}
