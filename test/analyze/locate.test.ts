// Where analyze says a problem is: the line and column of the field (not the object's `kind:`), for every field of
// one object apart; a YAML syntax error at the parser's line and column (text, JSON and SARIF); a path not written
// at the deepest part that is; labels with dots in their keys; the last definition of an object in a file.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { formatJson } from '../../src/analyze/format/json.ts';
import { sarifLog } from '../../src/analyze/format/sarif.ts';
import { formatText } from '../../src/analyze/format/text.ts';
import { indexText, pathSegments, positionInObject } from '../../src/model/parse/positions.ts';
import { analyzeFiles } from '../../src/app/analyze.ts';
import { OPTIONS } from './support.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-analyze-locate-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

const THREE_PORTS = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: orders
  namespace: shop
spec:
  hosts: [orders.shop.svc.cluster.local]
  addresses: [240.240.0.10]
  ports:
  - number: 8080
    name: tcp-metaprotocol-trpc
    protocol: TCP
  - number: 27017
    name: tcp-mongo
    protocol: TCP
  - number: 20882
    name: dubbo-tcp
    protocol: TCP
`;

describe('analyze locations', () => {
  it('each port problem is at its own name: key, not at the kind: line', () => {
    const f = file('ports.yaml', THREE_PORTS);
    const messages = analyzeFiles({ ...OPTIONS, files: [f] });
    const at = messages
      .filter((m) => m.path?.startsWith('spec.ports'))
      .map((m) => [m.path, m.line, m.column])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(at, [
      ['spec.ports[0].name', 11, 5],
      ['spec.ports[1].name', 14, 5],
      ['spec.ports[2].name', 17, 5],
    ]);
  });

  it('a YAML syntax error has the line and column in text, JSON and SARIF', () => {
    const f = file(
      'broken.yaml',
      `${THREE_PORTS.slice(0, THREE_PORTS.indexOf('  ports:'))}  ports: [\n  - x\n`,
    );
    const messages = analyzeFiles({ ...OPTIONS, files: [f] });
    const m = messages.find((x) => x.ref?.kind === 'File');
    assert.ok(m, JSON.stringify(messages));
    assert.match(m.message, /^line (\d+), column (\d+): invalid YAML/);
    const [, line, column] = /^line (\d+), column (\d+)/.exec(m.message)!.map(Number);
    assert.equal(m.line, line);
    assert.equal(m.column, column);
    const [json] = JSON.parse(formatJson([m]));
    assert.equal(json.line, line);
    assert.equal(json.column, column);
    assert.match(
      formatText([m]),
      new RegExp(`\\(File ${f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:${line}:${column}\\)`),
    );
    const log = sarifLog([m], { version: '1', informationUri: 'file:///opt/', baseDirectory: dir }) as any;
    assert.deepEqual(log.runs[0].results[0].locations[0].physicalLocation, {
      artifactLocation: { uri: 'broken.yaml', uriBaseId: 'SRCROOT' },
      region: { startLine: line, startColumn: column },
    });
  });

  it('a field not written is at the deepest part that is; a label key may hold dots', () => {
    const text = `kind: ServiceEntry
metadata:
  name: a
  labels:
    istio.io/use-waypoint: w
spec:
  ports: []
`;
    const index = indexText(text);
    const ref = { kind: 'ServiceEntry', namespace: 'default', name: 'a' };
    assert.deepEqual(positionInObject(index, ref, 'spec.addresses'), { line: 6, column: 1 });
    assert.deepEqual(positionInObject(index, ref, 'spec.ports[3].name'), { line: 7, column: 3 });
    assert.deepEqual(positionInObject(index, ref, 'metadata.labels.istio.io/use-waypoint'), {
      line: 5,
      column: 5,
    });
    assert.deepEqual(positionInObject(index, ref, ''), { line: 1, column: 1 });
    assert.deepEqual(pathSegments('a.b[2]["c.d"].e'), ['a', 'b', 2, 'c.d', 'e']);
  });

  it('an object defined twice in a file is at its last definition (the one that wins)', () => {
    const one = 'kind: DestinationRule\nmetadata: {name: d, namespace: x}\nspec: {host: h}\n';
    const index = indexText(`${one}---\n${one}`);
    const ref = { kind: 'DestinationRule', namespace: 'x', name: 'd' };
    assert.deepEqual(positionInObject(index, ref, 'spec.host'), { line: 7, column: 8 });
  });
});
