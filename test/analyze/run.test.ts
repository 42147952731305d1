// The run: messages sorted worst first, then by object and code; the namespace filter; each message located in
// the file (and line) its object came from.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { indexText, positionInObject } from '../../src/model/parse/positions.ts';
import { analyzeFiles } from '../../src/app/analyze.ts';
import { OPTIONS, analyzeText, serviceEntry } from './support.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-analyze-run-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const mixed =
  serviceEntry('b-web', ['tcp:20880', 'tcp-metaprotocol-dubbo:20881'], { namespace: 'web' }) +
  serviceEntry('a-orders', ['tcp-metaprotocol-trpc:8080', 'dubbo-tcp:20882', 'tcp-mongo:27017'], {
    namespace: 'shop',
  });

describe('runAnalysis', () => {
  it('sorts errors first, then warnings, each by object, then code and field', () => {
    const messages = analyzeText(mixed);
    assert.deepEqual(
      messages.map((m) => `${m.code.severity} ${m.ref?.namespace}/${m.ref?.name} ${m.code.code} ${m.path}`),
      [
        'error shop/a-orders AER0003 spec.ports[0].name',
        'warning shop/a-orders AER0001 spec.ports[1].name',
        'warning shop/a-orders AER0011 spec.ports[2].name',
        'warning web/b-web AER0002 spec.ports[0].name',
      ],
    );
  });

  it('keeps only the namespace asked for', () => {
    const messages = analyzeText(mixed, {}, { namespace: 'web' });
    assert.deepEqual(
      messages.map((m) => m.code.code),
      ['AER0002'],
    );
    assert.deepEqual(analyzeText(mixed, {}, { namespace: 'nowhere' }), []);
  });
});

describe('file locations', () => {
  it('names the file, line and column of each field; a missing file is an error about the file', () => {
    const first = path.join(dir, 'first.yaml');
    const second = path.join(dir, 'second.yaml');
    writeFileSync(first, `# orders\n${serviceEntry('orders', ['tcp-metaprotocol-trpc:8080'])}`);
    writeFileSync(
      second,
      `${serviceEntry('web', ['http:80'])}${serviceEntry('cache', ['tcp:20880', 'tcp-redis:6379'])}`,
    );
    const missing = path.join(dir, 'missing.yaml');
    const messages = analyzeFiles({ ...OPTIONS, files: [first, second, missing] });
    assert.deepEqual(
      messages.map((m) => [m.code.code, m.ref?.name, m.path, m.file, m.line, m.column]),
      [
        ['AER0010', missing, '', missing, undefined, undefined],
        ['AER0003', 'orders', 'spec.ports[0].name', first, 8, 26],
        ['AER0002', 'cache', 'spec.ports[0].name', second, 15, 27],
      ],
    );
  });

  it('positionInObject finds the kind line of the named object, in YAML, lists and JSON', () => {
    const lineOf = (text: string, kind: string, name: string) =>
      positionInObject(indexText(text), { kind, namespace: '', name }, '')?.line;
    const yaml =
      'apiVersion: v1\nkind: ServiceEntry\nmetadata:\n  name: a\n---\nkind: ServiceEntry\nmetadata:\n  name: "b"\n';
    assert.equal(lineOf(yaml, 'ServiceEntry', 'a'), 2);
    assert.equal(lineOf(yaml, 'ServiceEntry', 'b'), 6);
    assert.equal(lineOf(yaml, 'MetaRouter', 'a'), undefined);
    const list = 'kind: List\nitems:\n- kind: MetaRouter\n  metadata: {name: r, namespace: x}\n';
    assert.equal(lineOf(list, 'MetaRouter', 'r'), 3);
    const json = '{\n  "kind": "Gateway",\n  "metadata": {\n    "name": "gw"\n  }\n}\n';
    assert.equal(lineOf(json, 'Gateway', 'gw'), 2);
  });
});
