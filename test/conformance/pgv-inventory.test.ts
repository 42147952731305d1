// Which protoc-gen-validate rules protos-2026 uses (every message of every file, so everything Listener, Cluster,
// ClusterLoadAssignment, Bootstrap, RouteConfiguration and the waypoint's filters can reach), that pgv-rules.ts
// evaluates each of them, and that the waypoint EnvoyFilters of the render fixtures (test/fixtures/waypoint) break
// none of them.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { render } from '../../src/app/render.ts';
import type { EnvoyFilterObject } from '../../src/model/objects.ts';
import { repoRoot } from '../app/fixture-cases.ts';
import { fieldRules, oneofRequired, rulesOff } from './pgv-rules.ts';
import { type Rules, unsupportedRules } from './pgv-values.ts';
import { isObject, RealProtos } from './real-protos.ts';
import { PROTOS_2026_DIR, xdsProblems } from './xds-check.ts';

/** Every message of protos-2026: each file's top-level declarations looked up (which loads the file), then nested. */
function allMessages(): protobuf.Type[] {
  const protos = new RealProtos(PROTOS_2026_DIR);
  const files = readdirSync(PROTOS_2026_DIR, { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.proto'),
  );
  const out: protobuf.Type[] = [];
  const walk = (t: protobuf.Type): void => {
    out.push(t);
    for (const n of t.nestedArray) if (n instanceof protobuf.Type) walk(n);
  };
  for (const file of files) {
    const text = readFileSync(path.join(PROTOS_2026_DIR, file), 'utf8');
    const pkg = /^package\s+([\w.]+)\s*;/m.exec(text)?.[1];
    for (const m of text.matchAll(/^message\s+(\w+)/gm)) {
      const t = protos.lookup(pkg === undefined ? m[1]! : `${pkg}.${m[1]}`);
      if (t instanceof protobuf.Type) walk(t);
    }
  }
  return out;
}

/** The rule names of a FieldRules, as `kind.rule` (`repeated.items.string.in` for nested ones). */
function ruleNames(rules: Rules, prefix = ''): string[] {
  const out: string[] = [];
  for (const [kind, body] of Object.entries(rules)) {
    for (const [rule, value] of Object.entries(isObject(body) ? body : {})) {
      if (['items', 'keys', 'values'].includes(rule) && isObject(value)) {
        out.push(...ruleNames(value, `${prefix}${kind}.${rule}.`));
      } else out.push(`${prefix}${kind}.${rule}`);
    }
  }
  return out;
}

// grep -rho '(validate.rules)…' over protos-2026, read through protobufjs so multi-line options count too.
const USED = [
  ...[
    'any.required',
    'bool.const',
    'bytes.max_len',
    'bytes.min_len',
    'double.gt',
    'double.gte',
    'double.lte',
  ],
  ...['duration.gt', 'duration.gte', 'duration.lt', 'duration.lte', 'duration.required', 'enum.defined_only'],
  ...[
    'enum.not_in',
    'int32.gte',
    'int32.lte',
    'map.keys.string.min_len',
    'map.min_pairs',
    'message.required',
  ],
  ...[
    'message.skip',
    'repeated.items.double.gt',
    'repeated.items.enum.defined_only',
    'repeated.items.string.in',
  ],
  ...['repeated.items.string.max_bytes', 'repeated.items.string.min_len', 'repeated.items.string.strict'],
  ...['repeated.items.string.well_known_regex', 'repeated.items.uint32.gte', 'repeated.items.uint32.lt'],
  ...['repeated.items.uint32.lte', 'repeated.max_items', 'repeated.min_items', 'repeated.unique'],
  ...[
    'string.ignore_empty',
    'string.in',
    'string.max_bytes',
    'string.min_bytes',
    'string.min_len',
    'string.pattern',
  ],
  ...[
    'string.prefix',
    'string.strict',
    'string.suffix',
    'string.well_known_regex',
    'uint32.gt',
    'uint32.gte',
  ],
  ...['uint32.lt', 'uint32.lte', 'uint64.gt', 'uint64.gte', 'uint64.lt', 'uint64.lte'],
];

describe('the validation rules protos-2026 uses', () => {
  const messages = allMessages();
  const fields = messages.flatMap((t) => t.fieldsArray.map((f) => ({ where: `${t.fullName}.${f.name}`, f })));

  it('are these rule kinds, read from every message of every file', () => {
    assert.ok(messages.length > 500, `${messages.length} messages`);
    const used = new Set(fields.flatMap(({ f }) => ruleNames(fieldRules(f))));
    assert.deepEqual([...used].sort(), [...USED].sort());
  });

  it('every one of which the checker evaluates', () => {
    const unsupported = fields.flatMap(({ where, f }) =>
      unsupportedRules(fieldRules(f)).map((r) => `${where}: ${r}`),
    );
    assert.deepEqual(unsupported, []);
  });

  it('with (validate.required) on oneofs, and no message switching its rules off', () => {
    const required = messages.flatMap((t) =>
      t.oneofsArray.filter(oneofRequired).map((o) => `${t.fullName}.${o.name}`),
    );
    assert.ok(required.includes('.envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy.cluster_specifier'));
    assert.ok(required.length > 50, `${required.length} required oneofs`);
    assert.deepEqual(
      messages.filter(rulesOff).map((t) => t.fullName),
      [],
    );
  });
});

/** The waypoint EnvoyFilters `render --waypoint-envoyfilters` prints for a fixture case. */
function waypointFilters(dir: string): EnvoyFilterObject[] {
  const out = render({
    files: [path.join(dir, 'input.yaml')],
    output: 'json',
    routes: false,
    rootNamespace: 'istio-system',
    namespaceScope: false,
    waypointFilters: true,
  });
  const items = (JSON.parse(out.stdout) as { items: EnvoyFilterObject[] }).items;
  return items.filter((o) => o.metadata.name.startsWith('aeraki-waypoint-'));
}

describe('the waypoint EnvoyFilters of the render fixtures', () => {
  const casesDir = path.join(repoRoot, 'test/fixtures/waypoint');
  const cases = readdirSync(casesDir).filter((n) => /^\d/.test(n));
  const rendered = new Map(cases.map((name) => [name, waypointFilters(path.join(casesDir, name))]));

  it('are there to check', () => {
    assert.ok([...rendered.values()].flat().length >= cases.length - 1);
  });

  for (const [name, filters] of rendered) {
    it(`${name}: every NETWORK_FILTER value keeps the rules of envoy.config.listener.v3.Filter`, () => {
      for (const o of filters) {
        o.spec.configPatches.forEach((p, i) => {
          const at = `${o.metadata.namespace}/${o.metadata.name} $.spec.configPatches[${i}].patch.value`;
          const url = 'type.googleapis.com/envoy.config.listener.v3.Filter';
          assert.deepEqual(xdsProblems(url, p.patch.value, at), []);
        });
      }
    });
  }
});
