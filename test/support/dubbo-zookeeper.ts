// Registers Dubbo providers in a real ZooKeeper the way a Dubbo provider does: persistent
// `<root>/<interface>/providers` nodes, then one ephemeral node per provider named after its URL-encoded URL.
import zookeeper from 'node-zookeeper-client';
import { asError } from '../../src/registry/zookeeper/client.ts';

export interface ProviderSpec {
  readonly iface: string;
  readonly ip: string;
  readonly port: number;
  readonly version?: string;
  readonly group?: string;
  readonly extra?: Record<string, string>;
}

/** The decoded provider URL, parameters sorted as Dubbo writes them. */
export function providerUrl(p: ProviderSpec): string {
  const params: Record<string, string> = {
    anyhost: 'true',
    application: 'demo-provider',
    interface: p.iface,
    methods: 'sayHello,sayGoodbye',
    pid: '4242',
    side: 'provider',
    timestamp: '1700000000000',
    ...(p.version ? { version: p.version } : {}),
    ...(p.group ? { group: p.group } : {}),
    ...p.extra,
  };
  const query = Object.keys(params)
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  return `dubbo://${p.ip}:${p.port}/${p.iface}?${query}`;
}

/** Java's URLEncoder form (what Dubbo names the node). */
export function encodeNode(url: string): string {
  return encodeURIComponent(url).replace(/%20/g, '+');
}

export function connect(address: string, sessionTimeout = 4000): Promise<zookeeper.Client> {
  const client = zookeeper.createClient(address, { sessionTimeout, spinDelay: 100, retries: 0 });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.close();
      reject(
        new Error(`no ZooKeeper session with ${address} within 20 s (state ${String(client.getState())})`),
      );
    }, 20_000);
    client.once('connected', () => {
      clearTimeout(timer);
      resolve(client);
    });
    client.connect();
  });
}

/** One client call, bounded: a stuck request fails the test with the client's state instead of hanging it. */
function call<T>(
  client: zookeeper.Client,
  what: string,
  fn: (cb: (err: Error | zookeeper.Exception | null, value: T) => void) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what}: no answer within 15 s (client ${String(client.getState())})`)),
      15_000,
    );
    fn((err, value) => {
      clearTimeout(timer);
      if (err) reject(asError(err));
      else resolve(value);
    });
  });
}

export function mkdirp(client: zookeeper.Client, path: string): Promise<string> {
  return call(client, `mkdirp ${path}`, (cb) => client.mkdirp(path, cb));
}

/** Creates (ephemeral unless told) a node, its parents persistent; returns the node path. */
export async function createNode(
  client: zookeeper.Client,
  path: string,
  data = '',
  ephemeral = true,
): Promise<string> {
  await mkdirp(client, path.slice(0, path.lastIndexOf('/')));
  return createChild(client, path, data, ephemeral);
}

/** Creates (ephemeral unless told) a node whose parent exists: one request, so many can be in flight at once. */
export function createChild(
  client: zookeeper.Client,
  path: string,
  data = '',
  ephemeral = true,
): Promise<string> {
  const mode = ephemeral ? zookeeper.CreateMode.EPHEMERAL : zookeeper.CreateMode.PERSISTENT;
  return call(client, `create ${path}`, (cb) => client.create(path, Buffer.from(data), mode, cb));
}

export async function removeNode(client: zookeeper.Client, path: string): Promise<void> {
  await call<void>(client, `remove ${path}`, (cb) => client.remove(path, (err) => cb(err, undefined)));
}

export function setData(client: zookeeper.Client, path: string, data: string): Promise<unknown> {
  return call(client, `setData ${path}`, (cb) => client.setData(path, Buffer.from(data), cb));
}

/** Registers one provider as Dubbo does; returns its node path. */
export function registerProvider(client: zookeeper.Client, root: string, p: ProviderSpec): Promise<string> {
  return createNode(client, providerPath(root, p));
}

/** The node a provider registers under Dubbo's root node `root`. */
export function providerPath(root: string, p: ProviderSpec): string {
  return `${root}/${p.iface}/providers/${encodeNode(providerUrl(p))}`;
}
