// The fake Nacos checked with the official `nacos` npm client (it speaks the v1 naming API): what the client
// registers, the fake lists, and the client reads back what the fake holds. The v3 routes are checked by shape.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NacosNamingClient } from 'nacos';
import { FakeNacos } from './nacos/server.ts';

const quiet = {
  ...console,
  info() {},
  warn() {},
  debug() {},
  log() {},
  error() {},
};

interface ServiceListProxy {
  getServiceList(
    pageNo: number,
    pageSize: number,
    groupName: string,
  ): Promise<{ count: number; data: string[] }>;
}

function newClient(fake: FakeNacos, namespace: string): NacosNamingClient {
  return new NacosNamingClient({ logger: quiet, serverList: fake.address, namespace });
}

async function closeClient(client: NacosNamingClient): Promise<void> {
  await (client as unknown as { close(): Promise<void> }).close();
}

describe('fake Nacos with the official nacos client (v1)', () => {
  let fake: FakeNacos;
  let client: NacosNamingClient;

  before(async () => {
    fake = await FakeNacos.start();
    client = newClient(fake, 'prod');
    await client.ready();
  });

  after(async () => {
    await closeClient(client);
    await fake.close();
  });

  it('stores what the client registers, in its namespace and group', async () => {
    await client.registerInstance(
      'providers:org.apache.dubbo.samples.DemoService:1.0.0:',
      { ip: '10.0.0.1', port: 20880, metadata: { side: 'provider', version: '1.0.0' } } as never,
      'DUBBO',
    );
    const stored = fake.store.instances(
      'prod',
      'DUBBO',
      'providers:org.apache.dubbo.samples.DemoService:1.0.0:',
    );
    assert.deepEqual(
      stored.map((i) => [i.ip, i.port, i.healthy, i.enabled, i.metadata['version']]),
      [['10.0.0.1', 20880, true, true, '1.0.0']],
    );
    assert.deepEqual(fake.store.services('public', 'DUBBO'), []);
  });

  it('lists instances to the client, unhealthy ones only when asked for all', async () => {
    fake.store.register('prod', 'DUBBO', 'providers:org.apache.dubbo.samples.DemoService:1.0.0:', {
      ip: '10.0.0.2',
      port: 20880,
      healthy: false,
    });
    const all = await client.getAllInstances(
      'providers:org.apache.dubbo.samples.DemoService:1.0.0:',
      'DUBBO',
      '',
      false,
    );
    assert.deepEqual(all.map((h) => `${h.ip}:${h.port}:${h.healthy}`).sort(), [
      '10.0.0.1:20880:true',
      '10.0.0.2:20880:false',
    ]);
    assert.equal(all[0]!.serviceName, 'DUBBO@@providers:org.apache.dubbo.samples.DemoService:1.0.0:');
    const healthy = await client.selectInstances(
      'providers:org.apache.dubbo.samples.DemoService:1.0.0:',
      'DUBBO',
      '',
      true,
      false,
    );
    assert.deepEqual(
      healthy.map((h) => h.ip),
      ['10.0.0.1'],
    );
  });

  it('pages the service list of a group', async () => {
    for (let i = 0; i < 5; i++)
      fake.store.register('prod', 'PAGED', `svc-${i}`, { ip: '10.0.1.1', port: 1000 + i });
    const proxy = (client as unknown as { _serverProxy: ServiceListProxy })._serverProxy;
    const page1 = await proxy.getServiceList(1, 2, 'PAGED');
    const page3 = await proxy.getServiceList(3, 2, 'PAGED');
    assert.deepEqual(page1, { count: 5, data: ['svc-0', 'svc-1'] });
    assert.deepEqual(page3, { count: 5, data: ['svc-4'] });
  });

  it('removes what the client deregisters', async () => {
    await client.deregisterInstance(
      'providers:org.apache.dubbo.samples.DemoService:1.0.0:',
      { ip: '10.0.0.1', port: 20880 } as never,
      'DUBBO',
    );
    const left = fake.store.instances(
      'prod',
      'DUBBO',
      'providers:org.apache.dubbo.samples.DemoService:1.0.0:',
    );
    assert.deepEqual(
      left.map((i) => i.ip),
      ['10.0.0.2'],
    );
  });

  it('surfaces a fault status and body to the client as the real server would', async () => {
    fake.fail({ status: 403, body: 'user not found!', times: 1 });
    await assert.rejects(
      client.getAllInstances('providers:x:1.0.0:', 'DUBBO', '', false),
      /failed to req API/,
    );
    assert.equal(fake.faults[0]!.times, 0);
    fake.clearFaults();
  });
});

describe('fake Nacos v3 routes', () => {
  let fake: FakeNacos;
  before(async () => {
    fake = await FakeNacos.start({ v1: false, v3: true });
    fake.store.register('public', 'DEFAULT_GROUP', 'demo', { ip: '10.0.0.1', port: 20880 });
    fake.store.register('public', 'DEFAULT_GROUP', 'demo', { ip: '10.0.0.2', port: 20880, enabled: false });
  });
  after(() => fake.close());

  const get = async (path: string) => {
    const res = await fetch(`http://${fake.address}${path}`);
    return { status: res.status, body: (await res.json()) as any };
  };

  it('answers the admin service list as a Page of ServiceView in a result body', async () => {
    const { status, body } = await get(
      '/nacos/v3/admin/ns/service/list?namespaceId=public&pageNo=1&pageSize=10',
    );
    assert.equal(status, 200);
    assert.equal(body.code, 0);
    assert.equal(body.data.totalCount, 1);
    assert.deepEqual(body.data.pageItems[0], {
      name: 'demo',
      groupName: 'DEFAULT_GROUP',
      clusterCount: 1,
      ipCount: 2,
      healthyInstanceCount: 2,
      triggerFlag: 'false',
    });
  });

  it('answers the client instance list without disabled instances', async () => {
    const { body } = await get('/nacos/v3/client/ns/instance/list?serviceName=demo&groupName=DEFAULT_GROUP');
    assert.deepEqual(
      body.data.map((i: { ip: string }) => i.ip),
      ['10.0.0.1'],
    );
  });

  it('answers 404 with a Spring error body for the v1 API when it is off, 400 for a missing parameter', async () => {
    const v1 = await get('/nacos/v1/ns/service/list?pageNo=1&pageSize=10');
    assert.equal(v1.status, 404);
    assert.equal(v1.body.error, 'Not Found');
    const bad = await get('/nacos/v3/client/ns/instance/list');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 10000);
  });
});
