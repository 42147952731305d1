// Dubbo's names in Nacos and the watcher's URL parameters.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NacosInstance } from '../../../src/registry/nacos/api.ts';
import { nacosSettings } from '../../../src/registry/nacos/options.ts';
import { parseServiceName, toProviders } from '../../../src/registry/nacos/providers.ts';
import type { Logger } from '../../../src/util/logger.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { nacosSpec } from './harness.ts';

function instance(ip: string, extra: Partial<NacosInstance> = {}): NacosInstance {
  return {
    ip,
    port: 20880,
    healthy: true,
    enabled: true,
    weight: 1,
    clusterName: 'DEFAULT',
    metadata: {},
    ...extra,
  };
}

describe('Nacos service names', () => {
  it('parses provider names, skips consumers, keeps plain names', () => {
    assert.deepEqual(parseServiceName('providers:org.a.B:1.0.0:blue'), {
      kind: 'interface',
      iface: 'org.a.B',
      version: '1.0.0',
      group: 'blue',
    });
    assert.deepEqual(parseServiceName('providers:org.a.B::'), {
      kind: 'interface',
      iface: 'org.a.B',
      version: '',
      group: '',
    });
    assert.deepEqual(parseServiceName('providers:org.a.B'), {
      kind: 'interface',
      iface: 'org.a.B',
      version: '',
      group: '',
    });
    assert.deepEqual(parseServiceName('consumers:org.a.B:1.0.0:'), { kind: 'consumer' });
    assert.deepEqual(parseServiceName('providers:'), { kind: 'consumer' });
    assert.deepEqual(parseServiceName('shop-app'), { kind: 'plain', name: 'shop-app' });
  });

  it('takes version and group from the metadata when the name has none', () => {
    const [p] = toProviders({ namespace: 'public', group: 'DEFAULT_GROUP', service: 'providers:org.a.B::' }, [
      instance('10.0.0.1', { metadata: { version: '3.0.0', group: 'green' } }),
    ]);
    assert.deepEqual([p!.version, p!.group, p!.level], ['3.0.0', 'green', 'interface']);
  });
});

describe('Nacos URL parameters', () => {
  it('reads namespaces, groups, api, page size, context path and scheme', () => {
    const s = nacosSettings(
      nacosSpec('n:8848', {
        namespace: 'prod, dev,prod',
        group: 'DUBBO',
        api: 'v3',
        pageSize: '50',
        contextPath: '/registry/',
        scheme: 'https',
      }),
      silentLogger,
    );
    assert.deepEqual(s, {
      namespaces: ['prod', 'dev'],
      groups: ['DUBBO'],
      api: 'v3',
      pageSize: 50,
      contextPath: '/registry',
      scheme: 'https',
    });
    assert.deepEqual(nacosSettings(nacosSpec('n:8848'), silentLogger), {
      namespaces: ['public'],
      groups: ['DEFAULT_GROUP'],
      api: 'auto',
      pageSize: 100,
      contextPath: '/nacos',
      scheme: 'http',
    });
  });

  it('warns about a bad value, naming the parameter, and uses the default', () => {
    const warnings: Record<string, unknown>[] = [];
    const logger: Logger = { ...silentLogger, warn: (_m, f) => warnings.push(f ?? {}) };
    const s = nacosSettings(nacosSpec('n:8848', { api: 'v2', pageSize: '0', scheme: 'ftp' }), logger);
    assert.deepEqual([s.api, s.pageSize, s.scheme], ['auto', 100, 'http']);
    assert.deepEqual(
      warnings.map((w) => [w['param'], w['value']]),
      [
        ['api', 'v2'],
        ['pageSize', '0'],
        ['scheme', 'ftp'],
      ],
    );
  });
});
