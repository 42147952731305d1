// The output formats: istioctl's text lines, the stable JSON array and the SARIF 2.1.0 log's structure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANALYSIS_CODES } from '../../src/analyze/codes.ts';
import { formatJson } from '../../src/analyze/format/json.ts';
import { sarifLog } from '../../src/analyze/format/sarif.ts';
import { formatText, textLine } from '../../src/analyze/format/text.ts';
import { MISSING_CODEC } from '../../src/analyze/offline/generation.ts';
import { NO_HANDLED_PORTS } from '../../src/analyze/offline/no-handled-ports.ts';
import type { AnalysisMessage } from '../../src/analyze/types.ts';

const located: AnalysisMessage = {
  code: MISSING_CODEC,
  ref: { kind: 'ServiceEntry', namespace: 'shop', name: 'orders' },
  path: 'spec.ports[0].name',
  message: 'no codec',
  file: '/repo/config/orders.yaml',
  line: 3,
  column: 9,
};
const global: AnalysisMessage = { code: NO_HANDLED_PORTS, message: 'nothing handled' };

describe('text', () => {
  it("is istioctl analyze's form, with the file, line and column of the field", () => {
    assert.equal(
      textLine(located),
      'Error [AER0003] (ServiceEntry shop/orders spec.ports[0].name /repo/config/orders.yaml:3:9) no codec',
    );
    assert.equal(
      textLine({ ...located, file: undefined, line: undefined, column: undefined }),
      'Error [AER0003] (ServiceEntry shop/orders spec.ports[0].name) no codec',
    );
    assert.equal(
      textLine({
        ...located,
        ref: { kind: 'File', namespace: '', name: 'x.yaml' },
        path: '',
        file: 'x.yaml',
        line: 8,
        column: 3,
      }),
      'Error [AER0003] (File x.yaml:8:3) no codec',
    );
    assert.equal(textLine(global), 'Info [AER0012] nothing handled');
    assert.equal(
      textLine({ ...located, path: '', ref: { kind: 'ApplicationProtocol', namespace: '', name: 'trpc' } }),
      'Error [AER0003] (ApplicationProtocol trpc /repo/config/orders.yaml:3:9) no codec',
    );
    assert.equal(formatText([]), 'No validation issues found when analyzing the input.\n');
  });

  it('names the namespace analysed when nothing was found in it (istioctl: `namespace: <ns>`)', () => {
    assert.equal(
      formatText([], 'nonexistent'),
      'No validation issues found when analyzing namespace: nonexistent.\n',
    );
  });
});

describe('json', () => {
  it('is an array with every key present, null where it does not apply', () => {
    const parsed = JSON.parse(formatJson([located, global]));
    assert.deepEqual(parsed, [
      {
        code: 'AER0003',
        name: 'MissingCodec',
        severity: 'error',
        object: { kind: 'ServiceEntry', namespace: 'shop', name: 'orders' },
        path: 'spec.ports[0].name',
        message: 'no codec',
        file: '/repo/config/orders.yaml',
        line: 3,
        column: 9,
        documentation: 'docs/analyze.md#aer0003',
      },
      {
        code: 'AER0012',
        name: 'NoHandledPorts',
        severity: 'info',
        object: null,
        path: '',
        message: 'nothing handled',
        file: null,
        line: null,
        column: null,
        documentation: 'docs/analyze.md#aer0012',
      },
    ]);
  });
});

describe('sarif', () => {
  const log = sarifLog([located, global, { ...located, file: '/elsewhere/x.yaml', line: undefined }], {
    version: '1.2.3',
    informationUri: 'file:///opt/aeraki/',
    baseDirectory: '/repo',
  }) as any;
  const run = log.runs[0];

  it('has the driver and one rule per code, with why, fix and level', () => {
    assert.equal(log.version, '2.1.0');
    assert.equal(run.tool.driver.name, 'aeraki');
    assert.equal(run.tool.driver.version, '1.2.3');
    assert.equal(run.tool.driver.rules.length, ANALYSIS_CODES.length);
    const rule = run.tool.driver.rules.find((r: any) => r.id === 'AER0003');
    assert.equal(rule.name, 'MissingCodec');
    assert.equal(rule.shortDescription.text, MISSING_CODEC.why);
    assert.equal(rule.help.text, MISSING_CODEC.fix);
    assert.equal(rule.defaultConfiguration.level, 'error');
    assert.equal(rule.helpUri, 'file:///opt/aeraki/docs/analyze.md#aer0003');
    assert.equal(
      run.tool.driver.rules.find((r: any) => r.id === 'AER0012').defaultConfiguration.level,
      'note',
    );
  });

  it('locates results at their field, by URIs relative to SRCROOT (code scanning matches files by them)', () => {
    const [first, second, third] = run.results;
    assert.equal(first.ruleId, 'AER0003');
    assert.equal(run.tool.driver.rules[first.ruleIndex].id, 'AER0003');
    assert.equal(first.level, 'error');
    assert.deepEqual(first.locations[0].physicalLocation, {
      artifactLocation: { uri: 'config/orders.yaml', uriBaseId: 'SRCROOT' },
      region: { startLine: 3, startColumn: 9 },
    });
    assert.equal(
      first.locations[0].logicalLocations[0].fullyQualifiedName,
      'ServiceEntry shop/orders spec.ports[0].name',
    );
    assert.equal(run.originalUriBaseIds.SRCROOT.uri, 'file:///repo/');
    assert.equal(second.level, 'note');
    assert.equal(second.locations, undefined);
    assert.equal(third.locations[0].physicalLocation, undefined);
    assert.equal(third.locations[0].logicalLocations[0].properties.file, '/elsewhere/x.yaml');
    const outside = sarifLog([{ ...located, file: '/elsewhere/x.yaml' }], {
      version: '1',
      informationUri: 'file:///opt/aeraki/',
      baseDirectory: '/repo',
    }) as any;
    assert.deepEqual(outside.runs[0].results[0].locations[0].physicalLocation.artifactLocation, {
      uri: '../elsewhere/x.yaml',
      uriBaseId: 'SRCROOT',
    });
  });
});
