import { after } from 'node:test';
// Test wiring: a fake istiod, a ConfigStore with an event recorder, and an McpClient on a manual clock.
import { McpClient, type McpClientDeps, type McpClientOptions } from '../../../src/controller/mcp/client.ts';
import type { McpStatusSnapshot } from '../../../src/controller/mcp/status.ts';
import { ConfigStore } from '../../../src/controller/store.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import type { IstioServiceEntry } from '../../../src/model/objects.ts';
import type { ConfigEvent } from '../../../src/model/view.ts';
import { ManualClock } from '../../../src/util/clock.ts';
import { serviceEntry } from '../../support/builders.ts';
import { FakeIstiod, type FakeIstiodOptions } from './server.ts';

export const TEST_NODE = { podName: 'aeraki-7d9f-abcde', namespace: 'istio-system', podIp: '10.244.0.15' };

export interface Pair {
  readonly fake: FakeIstiod;
  readonly client: McpClient;
  readonly store: ConfigStore;
  readonly clock: ManualClock;
  readonly events: ConfigEvent[];
  close(): Promise<void>;
}

export async function startPair(
  fakeOptions: FakeIstiodOptions = {},
  clientOptions: Partial<McpClientOptions> = {},
  setup?: (fake: FakeIstiod) => void,
  deps: Partial<McpClientDeps> = {},
): Promise<Pair> {
  const fake = await FakeIstiod.start(fakeOptions);
  setup?.(fake);
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  const events: ConfigEvent[] = [];
  store.subscribe((e) => events.push(e));
  const clock = new ManualClock(1_000_000);
  const client = new McpClient(
    {
      address: fake.address,
      tls: false,
      apiVersion: 'auto',
      revision: '',
      node: TEST_NODE,
      backoff: { random: () => 0.5 },
      ...clientOptions,
    },
    { store, logger: silentLogger, clock, ...deps },
  );
  return {
    fake,
    client,
    store,
    clock,
    events,
    async close() {
      await client.stop();
      await fake.close();
    },
  };
}

/** Resolves when the client's status satisfies `predicate` (checked now and after every status change). */
export function waitForStatus(
  client: McpClient,
  predicate: (s: McpStatusSnapshot) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<McpStatusSnapshot> {
  const now = client.status();
  if (predicate(now)) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for client status: ${what}`));
    }, timeoutMs);
    const off = client.onStatus((s) => {
      if (!predicate(s)) return;
      clearTimeout(timer);
      off();
      resolve(s);
    });
  });
}

/** Waits until every response sent so far for `typeUrl` (or all) has been ACKed or NACKed by the client. */
export function settled(pair: Pair): Promise<void> {
  return pair.fake.waitFor(() => pair.fake.allAnswered(), 'client to answer every response');
}

/**
 * A ServiceEntry with a MetaProtocol port, hosts `<name>.<ns>.svc.cluster.local`; each `version` has its own
 * content too (an annotation), as a real edit would.
 */
export function se(name: string, version = '1', ns = 'shop'): IstioServiceEntry {
  return serviceEntry(
    ns,
    name,
    {
      hosts: [`${name}.${ns}.svc.cluster.local`],
      addresses: ['10.0.0.1'],
      ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
      resolution: 'STATIC',
    },
    { resourceVersion: version, annotations: { 'test.aeraki.io/edit': version } },
  );
}

export function names(p: Pair, kind: 'ServiceEntry' | 'VirtualService' = 'ServiceEntry'): string[] {
  return p.store.list(kind).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
}

/**
 * Starts pairs for one suite and closes them all after it: call inside `describe`; it registers the `after` hook
 * and returns the start function.
 */
export function trackedPairs(): (...args: Parameters<typeof startPair>) => Promise<Pair> {
  const pairs: Pair[] = [];
  after(async () => {
    for (const p of pairs) await p.close();
  });
  return async (...args) => {
    const p = await startPair(...args);
    pairs.push(p);
    return p;
  };
}
