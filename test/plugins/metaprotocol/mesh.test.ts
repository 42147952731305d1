import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MESH_CONFIG } from '../../../src/model/mesh.ts';
import type { MeshConfig } from '../../../src/model/objects.ts';
import { createMetaProtocolGenerator } from '../../../src/plugins/metaprotocol/index.ts';
import { DEFAULT_TEXT_FORMAT } from '../../../src/plugins/metaprotocol/mesh.ts';
import { DEMO_HOST, demoServiceEntry, draftNamed, proxyConfig, sidecarContext, unwrap } from './support.ts';

const gen = createMetaProtocolGenerator();
const OUTBOUND = `aeraki-outbound-${DEMO_HOST}-240.240.0.1-20880`;
const INBOUND = `aeraki-inbound-${DEMO_HOST}-20880`;

function withMesh(m: Partial<MeshConfig>, name = OUTBOUND): Record<string, unknown> {
  const mesh = { ...DEFAULT_MESH_CONFIG, ...m };
  const drafts = unwrap(gen.generateSidecar(sidecarContext(demoServiceEntry(), 0, { mesh })));
  return proxyConfig(draftNamed(drafts, name));
}

function logFormat(m: Partial<MeshConfig>): unknown {
  const log = withMesh({ accessLogFile: '/tmp/log', ...m })['accessLog'] as {
    typedConfig: Record<string, unknown>;
  }[];
  return log[0]?.typedConfig['logFormat'];
}

describe('metaprotocol mesh config (access log, tracing)', () => {
  it('tracing: default mesh gives randomSampling {}; no defaultConfig.tracing gives 1; disabled gives none', () => {
    assert.deepEqual(withMesh({})['tracing'], {
      clientSampling: { value: 100 },
      randomSampling: {},
      overallSampling: { value: 100 },
    });
    const sampling = (m: Partial<MeshConfig>) =>
      (withMesh(m)['tracing'] as Record<string, unknown>)['randomSampling'];
    assert.deepEqual(sampling({ tracingSampling: undefined }), { value: 1 });
    assert.deepEqual(sampling({ tracingSampling: 12.5 }), { value: 12.5 });
    assert.equal('tracing' in withMesh({ enableTracing: false }), false);
    assert.equal('tracing' in withMesh({ enableTracing: false }, INBOUND), false);
  });

  it('no accessLogFile, no access log', () => {
    assert.equal('accessLog' in withMesh({}), false);
    assert.equal('accessLog' in withMesh({ accessLogFormat: 'x', accessLogEncoding: 'JSON' }), false);
  });

  it('access log entry: file logger with the mesh path, on inbound and outbound', () => {
    for (const name of [OUTBOUND, INBOUND]) {
      assert.deepEqual(withMesh({ accessLogFile: '/dev/stdout', accessLogFormat: 'f' }, name)['accessLog'], [
        {
          name: 'envoy.access_loggers.file',
          typedConfig: {
            '@type': 'type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog',
            path: '/dev/stdout',
            logFormat: { textFormatSource: { inlineString: 'f' } },
          },
        },
      ]);
    }
  });

  it('text: the built-in format when none is given', () => {
    assert.deepEqual(logFormat({}), { textFormatSource: { inlineString: DEFAULT_TEXT_FORMAT } });
    assert.ok(
      DEFAULT_TEXT_FORMAT.includes('%DURATION%  "') && DEFAULT_TEXT_FORMAT.endsWith('%ROUTE_NAME%\n'),
    );
  });

  it('JSON: the mesh format parsed as an object, else the built-in 15-key map', () => {
    assert.deepEqual(logFormat({ accessLogEncoding: 'JSON', accessLogFormat: '{"a":"%A%","n":{"b":1}}' }), {
      jsonFormat: { a: '%A%', n: { b: 1 } },
    });
    for (const format of ['', 'not json', '[1]', '"s"', 'null']) {
      const f = logFormat({ accessLogEncoding: 'JSON', accessLogFormat: format }) as {
        jsonFormat: Record<string, string>;
      };
      assert.equal(Object.keys(f.jsonFormat).length, 15, format);
      assert.equal(f.jsonFormat['start_time'], '%START_TIME%');
    }
  });
});
