import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MESH_CONFIG } from '../../../src/model/mesh.ts';
import { isMeshConfigMap, meshConfigFromConfigMap, parseMeshConfig } from '../../../src/model/parse/parse.ts';
import { formatIssue } from '../../../src/model/result.ts';

function mesh(yaml: string) {
  const r = parseMeshConfig(yaml);
  assert.ok(r.ok, r.issues.map(formatIssue).join('; '));
  return r.value;
}

describe('parseMeshConfig', () => {
  it('empty config gives Istio defaults (tracing on, sampling 0)', () => {
    assert.deepEqual(mesh(''), DEFAULT_MESH_CONFIG);
    assert.equal(mesh('{}').tracingSampling, 0);
  });

  it('merges the fields it reads over the defaults', () => {
    assert.deepEqual(
      mesh(`
enableTracing: false
accessLogFile: /dev/stdout
accessLogEncoding: JSON
accessLogFormat: '{"a": "%START_TIME%"}'
defaultConfig:
  tracing:
    sampling: 12.5
    zipkin: {address: zipkin:9411}
outboundTrafficPolicy: {mode: REGISTRY_ONLY}
`),
      {
        accessLogFile: '/dev/stdout',
        accessLogEncoding: 'JSON',
        accessLogFormat: '{"a": "%START_TIME%"}',
        enableTracing: false,
        tracingSampling: 12.5,
        rootNamespace: 'istio-system',
      },
    );
  });

  it('defaultConfig without tracing keeps the default tracing block; tracing: null removes it', () => {
    assert.equal(mesh('defaultConfig: {concurrency: 2}').tracingSampling, 0);
    assert.equal(mesh('defaultConfig: {tracing: {zipkin: {address: z:9411}}}').tracingSampling, 0);
    assert.equal(mesh('defaultConfig: {tracing: null}').tracingSampling, undefined);
  });

  it('uses the given root namespace unless the mesh config sets one', () => {
    assert.equal(parseMeshConfig('', { rootNamespace: 'mesh-root' }).ok, true);
    const r = parseMeshConfig('accessLogFile: x', { rootNamespace: 'mesh-root' });
    assert.ok(r.ok);
    assert.equal(r.value.rootNamespace, 'mesh-root');
  });

  it('reports wrong types and invalid YAML as issues of the ConfigMap', () => {
    const bad = parseMeshConfig(
      'enableTracing: maybe\naccessLogEncoding: XML\ndefaultConfig: {tracing: {sampling: 120}}',
    );
    assert.equal(bad.ok, false);
    assert.deepEqual(bad.issues.map(formatIssue), [
      'ConfigMap istio-system/istio: data.mesh.enableTracing: expected a boolean, got string "maybe"',
      'ConfigMap istio-system/istio: data.mesh.accessLogEncoding: expected TEXT or JSON, got "XML"',
      'ConfigMap istio-system/istio: data.mesh.defaultConfig.tracing.sampling: expected a percentage between 0 and 100, got 120',
    ]);
    const syntax = parseMeshConfig('a: [1,');
    assert.equal(syntax.ok, false);
    assert.match(formatIssue(syntax.issues[0]!), /^ConfigMap istio-system\/istio: data\.mesh: invalid YAML/);
    assert.equal(parseMeshConfig('- a list').ok, false);
  });
});

describe('mesh ConfigMap recognition', () => {
  const cm = (ns: string, name = 'istio', data: unknown = { mesh: 'accessLogFile: /dev/stdout' }) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns },
    data,
  });

  it('is the ConfigMap istio in the root namespace only', () => {
    assert.equal(isMeshConfigMap(cm('istio-system'), 'istio-system'), true);
    assert.equal(isMeshConfigMap(cm('other'), 'istio-system'), false);
    assert.equal(isMeshConfigMap(cm('istio-system', 'istio-sidecar-injector'), 'istio-system'), false);
    assert.equal(isMeshConfigMap(cm('mesh-root'), 'mesh-root'), true);
    assert.equal(meshConfigFromConfigMap(cm('other'), 'istio-system'), undefined);
  });

  it('reads data.mesh; no data means defaults', () => {
    const r = meshConfigFromConfigMap(cm('mesh-root'), 'mesh-root');
    assert.ok(r?.ok);
    assert.equal(r.value.accessLogFile, '/dev/stdout');
    assert.equal(r.value.rootNamespace, 'mesh-root');
    const empty = meshConfigFromConfigMap(cm('istio-system', 'istio', null), 'istio-system');
    assert.deepEqual(empty, { ok: true, value: DEFAULT_MESH_CONFIG, issues: [] });
    const wrong = meshConfigFromConfigMap(cm('istio-system', 'istio', { mesh: 3 }), 'istio-system');
    assert.equal(wrong?.ok, false);
  });
});
