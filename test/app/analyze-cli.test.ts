// `aeraki analyze -f ...` from the sources: istioctl-form lines on stdout, -o json and -o sarif, exit 1 when a
// message is at or above --fail-on (default error), 0 otherwise, 2 for bad flags.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { cliArgs, run } from '../support/process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-analyze-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

const entry = (name: string, port: string, ns = 'rpc') => `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {namespace: ${ns}, name: ${name}}
spec:
  hosts: [${name}.${ns}.svc.cluster.local]
  ports: [{number: 20880, name: ${port}, protocol: TCP}]
`;

const analyze = (...args: string[]) => run(process.execPath, cliArgs(['analyze', ...args]), 60_000);

describe('aeraki analyze', { concurrency: 4 }, () => {
  const addressless = file('addressless.yaml', entry('echo', 'tcp-metaprotocol-dubbo'));
  const broken = file('broken.yaml', entry('legacy', 'tcp-metaprotocol-nocodec', 'legacy'));
  const clean = file('clean.yaml', entry('web', 'http'));

  it('warnings: exit 0 by default, 1 with --fail-on warning; --allocate-vips silences AER0004', async () => {
    const r = await analyze('-f', addressless);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      `Warning [AER0004] (ServiceEntry rpc/echo spec.addresses ${addressless}:4:1) no spec.addresses, so no outbound listener ` +
        '<address>_<port> to match: only inbound filters are generated (for the workloads the ServiceEntry ' +
        'selects), and its clients send plain TCP\n',
    );
    assert.equal((await analyze('-f', addressless, '--fail-on', 'warning')).code, 1);
    const vips = await analyze('-f', addressless, '--allocate-vips');
    assert.equal(vips.code, 0);
    assert.equal(vips.stdout, 'No validation issues found when analyzing the input.\n');
  });

  it('--waypoint-envoyfilters words the ambient advice (AER0014): off, turn it on; on, the waypoint', async () => {
    const ambient = file(
      'ambient.yaml',
      `apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {istio.io/dataplane-mode: ambient}}
---
${entry('orders', 'tcp-dubbo', 'shop').replace('  ports:', '  addresses: [240.240.0.10]\n  ports:')}`,
    );
    const off = await analyze('-f', ambient);
    assert.equal(off.code, 0, off.stderr);
    assert.match(
      off.stdout,
      /^Warning \[AER0014\] \(ServiceEntry shop\/orders metadata\.labels [^)]*ambient\.yaml:\d+:\d+\) .*; turn on --waypoint-envoyfilters and bind it to waypoint shop\/waypoint/,
    );
    const on = await analyze('-f', ambient, '--waypoint-envoyfilters');
    assert.match(on.stdout, /\[AER0014\] .*; bind it to waypoint shop\/waypoint/);
    assert.doesNotMatch(on.stdout, /turn on/);
  });

  it('errors: exit 1; -n reads the files as kubectl apply -n does', async () => {
    const r = await analyze('-f', broken, '-f', addressless);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /^Error \[AER0003\] \(ServiceEntry legacy\/legacy spec\.ports\[0\]\.name [^)]*broken\.yaml:6:27\) no codec/,
    );
    const rpc = await analyze('-f', addressless, '-n', 'rpc');
    assert.equal(rpc.code, 0, rpc.stdout);
    // An object of another namespace is refused, not analysed, as `kubectl apply -n rpc` refuses it.
    const other = await analyze('-f', broken, '-f', addressless, '-n', 'rpc');
    assert.equal(other.code, 1);
    assert.doesNotMatch(other.stdout, /AER0003/);
    assert.match(
      other.stdout,
      /ServiceEntry legacy\/legacy: the namespace from the provided object "legacy" does not match the namespace "rpc"/,
    );
  });

  it('info: exit 1 only with --fail-on info', async () => {
    assert.equal((await analyze('-f', clean)).code, 0);
    const r = await analyze('-f', clean, '--fail-on', 'info');
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^Info \[AER0012\] /);
  });

  it('-o json and -o sarif', async () => {
    const json = await analyze('-f', broken, '-o', 'json');
    assert.equal(json.code, 1);
    const [m] = JSON.parse(json.stdout);
    assert.equal(m.code, 'AER0003');
    assert.equal(m.file, broken);
    assert.equal(m.line, 6);
    assert.equal(m.column, 27);
    assert.equal(m.documentation, 'docs/analyze.md#aer0003');
    const sarif = await analyze('-f', broken, '-o', 'sarif');
    const log = JSON.parse(sarif.stdout);
    assert.equal(log.version, '2.1.0');
    assert.equal(log.runs[0].results[0].ruleId, 'AER0003');
    assert.match(log.runs[0].tool.driver.informationUri, /^file:\/\/\/.*\/$/);
  });

  it('bad flags exit 2', async () => {
    assert.equal((await analyze('-f', clean, '-o', 'xml')).code, 2);
    assert.equal((await analyze('-f', clean, '--fail-on', 'fatal')).code, 2);
    const both = await analyze('-f', clean, '-n', 'rpc', '-A');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /-n and -A exclude each other/);
  });
});
