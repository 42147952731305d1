// validateObjects: parse issues of every object, then the injected generation-time checks; against a given
// store (`existing`), only the generation issues the checked objects add.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generationCheck } from '../../../src/app/validate.ts';
import { parseRawObjects } from '../../../src/model/parse/objects.ts';
import { issueLine } from '../../../src/model/result.ts';
import { validateObjects } from '../../../src/model/validate/validate.ts';
import { PARSE_OPTIONS } from '../../support/kinds.ts';

const ROOT = 'istio-system';
const check = generationCheck({ rootNamespace: ROOT, namespaceScope: false });

const entry = (name: string, portName: string) => ({
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { namespace: 'rpc', name },
  spec: {
    hosts: [`${name}.rpc.svc.cluster.local`],
    addresses: ['240.240.0.1'],
    ports: [{ number: 20880, name: portName, protocol: 'TCP' }],
  },
});
const protocol = (name: string, codec: string) => ({
  apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
  kind: 'ApplicationProtocol',
  metadata: { name },
  spec: { protocol: name, codec },
});
const lines = (raws: unknown[], existing?: unknown[]) =>
  validateObjects(raws, {
    rootNamespace: ROOT,
    parseOptions: PARSE_OPTIONS,
    check,
    ...(existing ? { existing: parseRawObjects(existing, ROOT, [], PARSE_OPTIONS) } : {}),
  }).issues.map(issueLine);

describe('validateObjects', () => {
  it('reports parse errors with the object and the field path', () => {
    const bad = { ...protocol('trpc', ''), spec: { protocol: 'trpc', codec: 7 } };
    const out = lines([bad]);
    assert.equal(out.length, 1);
    assert.match(out[0]!, /^error: ApplicationProtocol trpc: spec\.codec: /);
  });

  it('reports the Istio rules and gateway conflicts in the render format', () => {
    const vs = {
      apiVersion: 'networking.istio.io/v1',
      kind: 'VirtualService',
      metadata: { namespace: 'rpc', name: 'vs' },
      spec: {
        hosts: ['echo.rpc.svc.cluster.local'],
        http: [{ match: [{ method: { regex: '([a-' } }], route: [{ destination: { host: 'echo' } }] }],
      },
    };
    const gateway = (name: string) => ({
      apiVersion: 'networking.istio.io/v1',
      kind: 'Gateway',
      metadata: { namespace: ROOT, name },
      spec: {
        selector: { istio: 'ingressgateway' },
        servers: [{ hosts: ['*'], port: { number: 9090, name: 'tcp-metaprotocol-thrift', protocol: 'TCP' } }],
      },
    });
    const out = lines([entry('echo', 'tcp-metaprotocol-dubbo'), vs, gateway('a'), gateway('b')]);
    assert.deepEqual(
      out.map((l) => l.split(': ').slice(0, 3).join(': ')),
      [
        'error: VirtualService rpc/vs: spec.http[0].match[0].method.regex',
        'warning: ServiceEntry rpc/echo: spec.hosts',
        'warning: Gateway istio-system/a: spec.servers[0].port.number',
        'warning: Gateway istio-system/b: spec.servers[0].port.number',
      ],
    );
  });

  it('runs the generation checks: a port whose codec nothing names is an error of its ServiceEntry', () => {
    const out = lines([entry('echo', 'tcp-metaprotocol-trpc')]);
    assert.ok(
      out.some((l) => l.startsWith('error: ServiceEntry rpc/echo: ')),
      out.join('\n'),
    );
    assert.deepEqual(lines([entry('echo', 'tcp-metaprotocol-trpc'), protocol('trpc', 'aeraki.trpc')]), []);
  });

  it('without checks, parsing only', () => {
    const issues = validateObjects([entry('echo', 'tcp-metaprotocol-trpc')], { rootNamespace: ROOT }).issues;
    assert.deepEqual(issues, []);
  });

  it('against a store: only what the checked object adds, and it replaces its own namespace/name', () => {
    const store = [
      entry('legacy', 'tcp-metaprotocol-old'),
      entry('echo', 'tcp-metaprotocol-trpc'),
      protocol('trpc', 'aeraki.trpc'),
    ];
    // The store already has a broken ServiceEntry (legacy): not the new object's problem.
    assert.deepEqual(lines([protocol('other', 'aeraki.other')], store), []);
    // Replacing the codec's ApplicationProtocol with one of another protocol breaks echo.
    const renamed = { ...protocol('trpc', 'aeraki.trpc'), spec: { protocol: 'xrpc', codec: 'aeraki.xrpc' } };
    const out = lines([renamed], store);
    assert.ok(
      out.some((l) => l.startsWith('error: ServiceEntry rpc/echo: ')),
      out.join('\n'),
    );
    assert.ok(!out.some((l) => l.includes('rpc/legacy')), out.join('\n'));
  });
});
