// The render fixtures' inputs, parsed and resolved by the real pipeline pieces (file source -> store -> context
// resolution), handed to the MetaProtocol generator alone. Every MetaProtocol EnvoyFilter it produces must match
// the fixture's expected spec (by sanitised name, in whichever namespace placement puts it), every expected
// meta_protocol_proxy filter must be produced, and the expected input errors must be reported.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fillStore, loadConfigFiles } from '../../../src/controller/file-source.ts';
import { ConfigStore } from '../../../src/controller/store.ts';
import { gatewayContexts, sidecarContexts } from '../../../src/envoyfilter/context.ts';
import { META_PROTOCOL_PROXY_FILTER } from '../../../src/model/constants.ts';
import type { EnvoyFilterSpec } from '../../../src/model/objects.ts';
import { formatIssue, severityOf, type ConfigIssue } from '../../../src/model/result.ts';
import { createMetaProtocolGenerator } from '../../../src/plugins/metaprotocol/index.ts';
import { sanitizeObjectName } from '../../../src/util/names.ts';
import { asJson, expectedItems, fixturesDir } from './support.ts';
import { PLUGIN_KINDS } from '../../support/kinds.ts';

const CASES = [
  '01-metaprotocol-dubbo-sidecar',
  '02-metaprotocol-thrift-two-addresses',
  '03-no-addresses-inbound-only',
  '04-exportto-namespaces',
  '05-exportto-dot',
  '06-namespace-scope',
  '07-custom-protocol-trpc',
  '08-unknown-codec-error',
  '16-local-rate-limit',
  '17-global-rate-limit',
  '18-gateway-thrift',
  '22-mesh-text-access-log',
  '23-mesh-json-access-log',
  '24-root-namespace',
  '25-d1-port-without-app-protocol',
  '26-d2-selector-fallbacks',
  '28-d4-mixed-protocol-ports',
  '30-d5-sorted-filter-matchers',
  '31-d6-fqdn-and-oldest',
  '33-d7-name-sanitising',
  '34-d8-rate-limit-inputs',
];

const gen = createMetaProtocolGenerator();
const byProtocol = new Map([['metaprotocol' as const, gen]]);

function rootNamespaceOf(caseDir: string): string {
  const argsFile = path.join(caseDir, 'args');
  const args = existsSync(argsFile) ? readFileSync(argsFile, 'utf8').trim().split(/\s+/) : [];
  const i = args.indexOf('--root-namespace');
  return i >= 0 ? (args[i + 1] ?? 'istio-system') : 'istio-system';
}

/** name -> spec of everything the MetaProtocol generator produces for the case, plus every issue seen. */
function generateCase(caseName: string): { specs: Map<string, EnvoyFilterSpec>; issues: ConfigIssue[] } {
  const dir = path.join(fixturesDir, caseName);
  const rootNamespace = rootNamespaceOf(dir);
  const loaded = loadConfigFiles([path.join(dir, 'input.yaml')], { rootNamespace, kinds: PLUGIN_KINDS });
  const store = new ConfigStore({ rootNamespace });
  fillStore(store, loaded);
  const issues: ConfigIssue[] = [...loaded.issues];
  const specs = new Map<string, EnvoyFilterSpec>();
  const add = (name: string, spec: EnvoyFilterSpec): void => {
    const key = sanitizeObjectName(name);
    assert.ok(!specs.has(key), `${caseName}: ${key} generated twice`);
    specs.set(key, spec);
  };
  for (const se of store.serviceEntries()) {
    const host = se.spec.hosts[0];
    if (host === undefined) continue;
    for (const ctx of sidecarContexts(store, se, host, byProtocol)) {
      if (ctx.protocol !== 'metaprotocol') continue;
      const r = gen.generateSidecar(ctx);
      issues.push(...r.issues);
      if (r.ok) for (const d of r.value) add(d.name, d.spec);
    }
  }
  for (const gw of store.gateways()) {
    for (const ctx of gatewayContexts(store, gw)) {
      const r = gen.generateGateway!(ctx);
      issues.push(...r.issues);
      if (r.ok) for (const d of r.value) if (d.kind === 'EnvoyFilter') add(d.name, d.spec);
    }
  }
  return { specs, issues };
}

function isMetaProtocolFilter(spec: Record<string, unknown>): boolean {
  const patches = spec['configPatches'] as { patch: { value: { name?: string } } }[];
  return patches[0]?.patch.value.name === META_PROTOCOL_PROXY_FILTER;
}

describe('metaprotocol generator on the render fixtures (parsed input)', () => {
  for (const caseName of CASES) {
    it(caseName, () => {
      const { specs, issues } = generateCase(caseName);
      const expected = expectedItems(caseName).filter((i) => isMetaProtocolFilter(i.spec));
      for (const item of expected) {
        const got = specs.get(item.metadata.name);
        assert.ok(got, `${caseName}: ${item.metadata.namespace}/${item.metadata.name} not generated`);
        assert.deepEqual(asJson(got), item.spec, `${caseName}: ${item.metadata.name}`);
      }
      const expectedNames = new Set(expected.map((i) => i.metadata.name));
      assert.deepEqual(
        [...specs.keys()].filter((n) => !expectedNames.has(n)),
        [],
        `${caseName}: unexpected filters`,
      );
      const stderrFile = path.join(fixturesDir, caseName, 'expected-stderr.txt');
      const wanted = existsSync(stderrFile)
        ? readFileSync(stderrFile, 'utf8')
            .split('\n')
            .filter((l) => l !== '' && l !== 'error:')
        : [];
      const text = issues.map(formatIssue).join('\n');
      for (const line of wanted) assert.ok(text.includes(line), `${caseName}: no issue for ${line}\n${text}`);
      // Warnings may come with valid input (fixtures README); errors may not.
      const errors = issues.filter((i) => severityOf(i) === 'error').map(formatIssue);
      if (wanted.length === 0) assert.deepEqual(errors, [], `${caseName}: unexpected errors`);
    });
  }
});
