// What analyze, render and validate say, through the CLI (run from the sources, as the other CLI tests): a YAML
// syntax error located in JSON and SARIF; an object defined several times (Aeraki's thrift demo defines one
// DestinationRule three times); a YAML merge key; `-n` with nothing found naming the namespace; a held object in
// offline words; an admission error without the controller's consequence; the no-address advice of Kubernetes
// Services (headless, ExternalName, no cluster IP in the file), which VIP allocation does not silence.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { cliArgs, run } from '../support/process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-messages-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const THRIFT_DEMO = resolve(import.meta.dirname, '../../../shared/aeraki-demos/metaprotocol-thrift');

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

const aeraki = (...args: string[]) => run(process.execPath, cliArgs(args), 60_000);
const HOST = 'orders.shop.svc.cluster.local';
const ENTRY = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: orders, namespace: shop}
spec:
  hosts: [${HOST}]
  addresses: [240.240.0.10]
  ports: [{number: 20880, name: tcp-dubbo, protocol: TCP}]
`;

describe('what analyze, render and validate say', { concurrency: 4 }, () => {
  it('a YAML syntax error: line and column in -o json, a physical location in -o sarif', async () => {
    const broken = file('broken.yaml', `${ENTRY}  resolution: [\n`);
    const json = await aeraki('analyze', '-f', broken, '-o', 'json');
    assert.equal(json.code, 1, json.stderr);
    const [m] = JSON.parse(json.stdout);
    assert.match(m.message, /^line 9, column 1: invalid YAML/);
    assert.deepEqual([m.file, m.line, m.column], [broken, 9, 1]);
    const sarif = await aeraki('analyze', '-f', broken, '-o', 'sarif');
    const result = JSON.parse(sarif.stdout).runs[0].results[0];
    assert.deepEqual(result.locations[0].physicalLocation.region, { startLine: 9, startColumn: 1 });
    assert.equal(result.locations[0].physicalLocation.artifactLocation.uriBaseId, 'SRCROOT');
    assert.doesNotMatch(result.locations[0].physicalLocation.artifactLocation.uri, /^file:/);
  });

  it("Aeraki's thrift demo: the DestinationRule defined three times, and which one wins", async () => {
    const r = await aeraki('analyze', '-f', THRIFT_DEMO);
    const line = r.stdout
      .split('\n')
      .find((l) => l.includes('DestinationRule meta-thrift/thrift-sample-server'));
    assert.ok(line, r.stdout);
    assert.match(
      line,
      /^Warning \[AER0011\] \(DestinationRule meta-thrift\/thrift-sample-server \S+outlier-detection\.yaml:44:1\) defined 3 times \(\S+consistent-hash-lb\/destinationrule\.yaml:17, \S+metaprotocol-thrift\/destinationrule\.yaml:17, \S+outlier-detection\.yaml:44\): \S+outlier-detection\.yaml:44 wins/,
    );
  });

  it('a YAML merge key: "merge keys (<<) are not supported", at the key', async () => {
    const merged = file(
      'merged.yaml',
      `apiVersion: v1
kind: List
items:
- apiVersion: networking.istio.io/v1
  kind: DestinationRule
  metadata: &meta {name: orders, namespace: shop}
  spec: {host: ${HOST}}
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata:
    <<: *meta
  spec:
    hosts: [${HOST}]
`,
    );
    const v = await aeraki('validate', '-f', merged);
    assert.equal(v.code, 1);
    assert.equal(
      v.stderr,
      'error: VirtualService shop/orders: metadata.<<: merge keys (<<) are not supported: write the merged fields out\n',
    );
    const a = await aeraki('analyze', '-f', merged);
    assert.match(
      a.stdout,
      /^Error \[AER0010\] \(VirtualService shop\/orders metadata\.<< \S+merged\.yaml:11:5\) merge keys/,
    );
  });

  it('-n with nothing found names the namespace', async () => {
    // Without a namespace of its own: -n reads it into that namespace (an object of another one would be an error).
    const clean = file('clean.yaml', ENTRY.replace('{name: orders, namespace: shop}', '{name: orders}'));
    const r = await aeraki('analyze', '-f', clean, '-n', 'nonexistent');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'No validation issues found when analyzing namespace: nonexistent.\n');
  });

  it('render offline: a held object is left out of the output (nothing was written before)', async () => {
    const held = file(
      'held.yaml',
      `${ENTRY}---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: orders, namespace: shop}
spec:
  host: ${HOST}
  subsets: [{labels: {version: v1}}]
`,
    );
    const r = await aeraki('render', '-f', held);
    assert.match(
      r.stderr,
      /warning: ServiceEntry shop\/orders: spec\.hosts: held: DestinationRule shop\/orders is invalid: left out of the output until fixed\n/,
    );
    assert.doesNotMatch(r.stderr, /what was written before stays/);
  });

  it("validate: an admission error says the rule, not the controller's consequence", async () => {
    const router = file(
      'router.yaml',
      `${ENTRY}---
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: orders, namespace: shop}
spec:
  hosts: [${HOST}]
  routes:
  - route:
    - {destination: {host: ${HOST}, port: {number: 0}}}
`,
    );
    const v = await aeraki('validate', '-f', router);
    assert.equal(v.code, 1);
    assert.equal(
      v.stderr,
      'error: MetaRouter shop/orders: spec.routes[0].route[0].destination.port.number: must be between 1 and 65535, got 0\n',
    );
    const r = await aeraki('render', '-f', router);
    assert.match(r.stderr, /got 0: the service's port is used\n/);
  });

  it('Kubernetes Services: the advice names spec.clusterIP or spec.type and fits the Service', async () => {
    const services = file(
      'services.yaml',
      `apiVersion: v1
kind: Service
metadata: {name: ext, namespace: shop}
spec:
  type: ExternalName
  externalName: orders.example.com
  ports: [{name: tcp-dubbo, port: 20880}]
---
apiVersion: v1
kind: Service
metadata: {name: headless, namespace: shop}
spec:
  clusterIP: None
  selector: {app: headless}
  ports: [{name: tcp-dubbo, port: 20880}]
---
apiVersion: v1
kind: Service
metadata: {name: plain, namespace: shop}
spec:
  selector: {app: plain}
  ports: [{name: tcp-dubbo, port: 20880}]
`,
    );
    const r = await aeraki('render', '-f', services);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 3, r.stderr);
    assert.doesNotMatch(r.stderr, /: spec\.addresses: /);
    assert.match(
      lines[0]!,
      /^warning: Service shop\/ext: spec\.type: an ExternalName Service is a DNS alias .* nothing is generated/,
    );
    assert.match(
      lines[1]!,
      /^warning: Service shop\/headless: spec\.clusterIP: a headless Service \(clusterIP: None\) .*<pod IP>_<port>/,
    );
    assert.match(
      lines[2]!,
      /^warning: Service shop\/plain: spec\.clusterIP: no spec\.clusterIP in the file \(the API server allocates one/,
    );
    const a = await aeraki('analyze', '-f', services, '--allocate-vips');
    assert.equal(a.stdout.split('\n').filter((l) => l.startsWith('Warning [AER0004]')).length, 3, a.stdout);
  });
});
