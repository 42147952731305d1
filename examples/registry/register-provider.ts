// Registers Dubbo providers in a ZooKeeper as a Dubbo provider does, and keeps them registered until killed:
// persistent `<root>/<interface>/providers` nodes, one ephemeral node per provider named after its URL-encoded
// `dubbo://ip:port/interface?...` URL (so the providers vanish when this process stops or its session expires;
// after an expiry they are registered again in a new session).
//
//   node --import tsx examples/registry/register-provider.ts --zk 127.0.0.1:2181 \
//     --interface org.apache.dubbo.samples.DemoService --versions 1.0.0,2.0.0 --ips 10.0.0.1,10.0.0.2 --port 20880
//
// Every interface x version x IP is one provider. Ctrl-C removes them.
import { parseArgs } from 'node:util';
import zookeeper from 'node-zookeeper-client';

const { values } = parseArgs({
  options: {
    zk: { type: 'string', default: '127.0.0.1:2181' },
    root: { type: 'string', default: '/dubbo' },
    interface: { type: 'string', multiple: true, default: ['org.apache.dubbo.samples.DemoService'] },
    versions: { type: 'string', default: '1.0.0' },
    group: { type: 'string', default: '' },
    ips: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '20880' },
    application: { type: 'string', default: 'demo-provider' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(
    'register-provider [--zk host:port[,host:port]] [--root /dubbo] [--interface NAME]... [--versions 1.0.0,2.0.0]\n' +
      '  [--group G] [--ips 10.0.0.1,10.0.0.2] [--port 20880] [--application demo-provider]',
  );
  process.exit(0);
}

const list = (text: string): string[] => text.split(',').filter((s) => s !== '');

/** The provider URL as Dubbo writes it (parameters sorted), then URL-encoded once as Java's URLEncoder does. */
function providerNode(iface: string, version: string, ip: string): string {
  const params: Record<string, string> = {
    anyhost: 'true',
    application: values.application,
    dubbo: '2.0.2',
    interface: iface,
    methods: 'sayHello',
    pid: String(process.pid),
    side: 'provider',
    timestamp: String(Date.now()),
    ...(version ? { version } : {}),
    ...(values.group ? { group: values.group } : {}),
  };
  const query = Object.keys(params)
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
  return encodeURIComponent(`dubbo://${ip}:${values.port}/${iface}?${query}`).replace(/%20/g, '+');
}

const nodes = values.interface.flatMap((iface) =>
  list(values.versions).flatMap((version) =>
    list(values.ips).map((ip) => `${values.root}/${iface}/providers/${providerNode(iface, version, ip)}`),
  ),
);

function register(client: zookeeper.Client, path: string): Promise<void> {
  const parent = path.slice(0, path.lastIndexOf('/'));
  return new Promise((resolve, reject) =>
    client.mkdirp(parent, (err) => {
      if (err) return reject(new Error(`mkdirp ${parent}: ${String(err)}`));
      client.create(path, zookeeper.CreateMode.EPHEMERAL, (e) => {
        if (e && e.name !== 'NODE_EXISTS') reject(new Error(`create ${path}: ${String(e)}`));
        else resolve();
      });
    }),
  );
}

let client: zookeeper.Client | undefined;

function connect(): void {
  const c = zookeeper.createClient(values.zk, { sessionTimeout: 10_000, spinDelay: 1000, retries: 0 });
  client = c;
  c.once('connected', () => {
    Promise.all(nodes.map((n) => register(c, n))).then(
      () => console.log(`registered ${nodes.length} provider(s) in ${values.zk}${values.root}; Ctrl-C removes them`),
      (err: unknown) => console.error(String(err)),
    );
  });
  c.on('disconnected', () => console.error('connection to ZooKeeper lost; retrying'));
  c.once('expired', () => {
    console.error('session expired; registering again in a new session');
    c.close();
    connect();
  });
  c.connect();
}

connect();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    client?.close();
    setTimeout(() => process.exit(0), 200);
  });
}
