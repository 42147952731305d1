// The hand reader of ClientConfig against protobufjs reflection over the CSDS protos, both answer shapes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeSyncz } from '../../src/proxy-status/decode.ts';
import { LISTENER_TYPE_URL, loadSynczProtos } from '../../src/proxy-status/protos.ts';
import { readClientConfig } from '../../src/proxy-status/wire.ts';
import { CLIENT_CONFIG, encodeSyncz, proxyId, type FakeProxy } from '../fakes/istiod/syncz.ts';

const PROXIES: FakeProxy[] = [
  { id: proxyId('a', 'shop'), namespace: 'shop', lds: 'SYNCED' },
  {
    id: proxyId('b', 'pay'),
    namespace: 'pay',
    lds: 'ERROR',
    ldsError: 'Error adding/updating listener(s) x_1: y',
  },
  { id: proxyId('c', 'web'), namespace: 'web', lds: 'STALE' },
  { id: proxyId('d', 'web'), namespace: 'web', lds: 'NOT_SENT' },
];

interface Reflected {
  node?: { id?: string; metadata?: { fields?: Record<string, { stringValue?: string }> } };
  genericXdsConfigs?: { typeUrl?: string; configStatus?: number; errorState?: { details?: string } }[];
  xdsConfig?: { status?: number; listenerConfig?: unknown }[];
}

describe('proxy-status/wire: readClientConfig', () => {
  for (const shape of ['current', 'older'] as const) {
    it(`reads what reflection reads (${shape} shape)`, () => {
      const { ClientConfig } = loadSynczProtos();
      for (const any of encodeSyncz(PROXIES, shape)) {
        const full = ClientConfig.decode(any.value) as Reflected;
        const lds = full.genericXdsConfigs?.find((g) => g.typeUrl === LISTENER_TYPE_URL);
        const older = full.xdsConfig?.find((x) => x.listenerConfig != null);
        assert.deepEqual(readClientConfig(any.value), {
          id: full.node?.id ?? '',
          namespace: full.node?.metadata?.fields?.['NAMESPACE']?.stringValue ?? '',
          ldsStatus: lds ? (lds.configStatus ?? 0) : older ? (older.status ?? 0) : undefined,
          ldsError: lds?.errorState?.details || undefined,
        });
      }
    });
  }

  it('decodeSyncz: namespace from the proxy id in the older shape; malformed bytes are not an answer', () => {
    const d = decodeSyncz(encodeSyncz(PROXIES, 'older'));
    assert.ok(d.ok);
    assert.deepEqual(
      d.proxies.map((p) => [p.namespace, p.listeners]),
      [
        ['shop', 'SYNCED'],
        ['pay', 'STALE'],
        ['web', 'STALE'],
        ['web', 'NOT_SENT'],
      ],
    );
    const bad = decodeSyncz([{ type_url: CLIENT_CONFIG, value: Uint8Array.from([0x0a, 0xff, 0xff, 0x01]) }]);
    assert.equal(bad.ok, false);
    assert.equal(decodeSyncz([{ type_url: 'type.googleapis.com/x.Y', value: new Uint8Array() }]).ok, false);
  });
});
