// Every EnvoyFilter and MetaProtocol route that `render` produces from the acceptance fixtures and examples/ parses
// against the data planes' real protos (../shared/protos-real) as strict proto3 JSON: the EnvoyFilter spec as
// Istio's EnvoyFilter, each patch value as the Envoy message its applyTo stands for, every TypedStruct and Any
// inside as the type it names, recursively; each route as envoy.config.route.v3.RouteConfiguration.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { render } from '../../src/app/render.ts';
import { loadCases, optionsOf, repoRoot } from '../app/fixture-cases.ts';
import {
  childPath,
  formatProblem,
  isObject,
  Proto3JsonChecker,
  RealProtos,
  type JsonObject,
  type Problem,
} from './real-protos.ts';

const examplesDir = path.join(repoRoot, 'examples');
const protos = new RealProtos();
const checker = new Proto3JsonChecker(protos);

/** The Envoy message an EnvoyFilter patch value stands for, by applyTo (Istio's xds.BuildXDSObjectFromStruct). */
const PATCH_VALUE_TYPES: Readonly<Record<string, string>> = {
  LISTENER: 'envoy.config.listener.v3.Listener',
  FILTER_CHAIN: 'envoy.config.listener.v3.FilterChain',
  NETWORK_FILTER: 'envoy.config.listener.v3.Filter',
  HTTP_FILTER: 'envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter',
  ROUTE_CONFIGURATION: 'envoy.config.route.v3.RouteConfiguration',
  VIRTUAL_HOST: 'envoy.config.route.v3.VirtualHost',
  HTTP_ROUTE: 'envoy.config.route.v3.Route',
  CLUSTER: 'envoy.config.cluster.v3.Cluster',
  EXTENSION_CONFIG: 'envoy.config.core.v3.TypedExtensionConfig',
  BOOTSTRAP: 'envoy.config.bootstrap.v3.Bootstrap',
  LISTENER_FILTER: 'envoy.config.listener.v3.ListenerFilter',
};

/**
 * Problems the generated documents have today, not fixed here (this suite changes no production code): each is
 * reported as a todo with its reason, and must still occur (an entry that no longer matches fails, so the list
 * shrinks as they are fixed). `path` matches the problem's JSON path within its document.
 */
const KNOWN_PROBLEMS: readonly {
  readonly path: RegExp;
  readonly message: string;
  readonly reason: string;
}[] = [];

type Json = JsonObject;

/** One generated document (an EnvoyFilter, another Istio object or a route) and what is wrong with it. */
interface CheckedDocument {
  readonly name: string;
  readonly problems: readonly Problem[];
}

function checkEnvoyFilter(item: Json): Problem[] {
  const problems = checker.check('istio.networking.v1alpha3.EnvoyFilter', item['spec'], '$.spec');
  const spec = isObject(item['spec']) ? item['spec'] : {};
  const patches = Array.isArray(spec['configPatches']) ? (spec['configPatches'] as unknown[]) : [];
  patches.forEach((patch, i) => {
    if (!isObject(patch) || !isObject(patch['patch']) || patch['patch']['value'] === undefined) return;
    const at = `$.spec.configPatches[${i}].patch.value`;
    const applyTo = String(patch['applyTo']);
    const type = PATCH_VALUE_TYPES[applyTo];
    if (type === undefined) problems.push({ path: at, message: `no Envoy message for applyTo ${applyTo}` });
    else problems.push(...checker.check(type, patch['patch']['value'], at));
  });
  return problems;
}

/** The documents of one `render -o json` output: the items of a List or of a RouteConfigurationList. */
function checkOutput(source: string, stdout: string): CheckedDocument[] {
  const doc = JSON.parse(stdout) as Json;
  const items = Array.isArray(doc['items']) ? (doc['items'] as Json[]) : [];
  if (doc['kind'] === 'RouteConfigurationList') {
    return items.map((route) => ({
      name: `${source}: route ${String(route['name'])}`,
      problems: checker.check('envoy.config.route.v3.RouteConfiguration', route),
    }));
  }
  return items.map((item) => {
    const kind = String(item['kind']);
    const meta = isObject(item['metadata']) ? item['metadata'] : {};
    const name = `${source}: ${kind} ${String(meta['namespace'])}/${String(meta['name'])}`;
    if (kind === 'EnvoyFilter') return { name, problems: checkEnvoyFilter(item) };
    const type = protos.lookup(`istio.networking.v1alpha3.${kind}`);
    if (type === undefined)
      return { name, problems: [{ path: '$', message: `no Istio message for kind ${kind}` }] };
    return { name, problems: checker.check(type.fullName, item['spec'], '$.spec') };
  });
}

function renderBoth(
  source: string,
  files: string[],
  options: ReturnType<typeof optionsOf>,
): CheckedDocument[] {
  return [false, true].flatMap((routes) =>
    checkOutput(
      `${source}${routes ? ' --routes' : ''}`,
      render({ files, output: 'json', ...options, routes }).stdout,
    ),
  );
}

describe('strict proto3 JSON checker', () => {
  const filter = (value: Json): Json => ({
    name: 'envoy.filters.network.thrift_proxy',
    typed_config: {
      '@type': 'type.googleapis.com/udpa.type.v1.TypedStruct',
      type_url: 'type.googleapis.com/envoy.extensions.filters.network.thrift_proxy.v3.ThriftProxy',
      value,
    },
  });
  const problemsOf = (type: string, json: unknown): string[] => checker.check(type, json).map(formatProblem);
  const base = '$.typed_config.value';

  it('accepts a correct document, by JSON names and proto names', () => {
    const value = {
      stat_prefix: 'outbound|9090||thrift',
      transport: 'FRAMED',
      routeConfig: {
        name: 'r',
        routes: [{ match: { methodName: '' }, route: { cluster: 'c' } }],
        validate_clusters: false,
      },
      maxRequestsPerConnection: 10,
      thriftFilters: [{ name: 'envoy.filters.thrift.router' }],
      accessLog: [
        {
          name: 'envoy.access_loggers.file',
          typedConfig: {
            '@type': 'type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog',
            path: '/dev/stdout',
          },
        },
      ],
    };
    assert.deepEqual(problemsOf('envoy.config.listener.v3.Filter', filter(value)), []);
  });

  it('rejects an unknown field', () => {
    assert.deepEqual(problemsOf('envoy.config.listener.v3.Filter', filter({ statPrefix: 's', bogus: 1 })), [
      `${base}.bogus: unknown field "bogus" in envoy.extensions.filters.network.thrift_proxy.v3.ThriftProxy`,
    ]);
  });

  it('rejects a wrong JSON type', () => {
    const problems = problemsOf(
      'envoy.config.listener.v3.Filter',
      filter({ statPrefix: 3, payloadPassthrough: 'yes' }),
    );
    assert.deepEqual(problems, [
      `${base}.statPrefix: a string is expected, not a number (3)`,
      `${base}.payloadPassthrough: a bool is expected, not a string ("yes")`,
    ]);
  });

  it('rejects an enum name that does not exist', () => {
    assert.deepEqual(problemsOf('envoy.config.listener.v3.Filter', filter({ transport: 'SOMETIMES' })), [
      `${base}.transport: "SOMETIMES" is not a value of enum envoy.extensions.filters.network.thrift_proxy.v3.TransportType`,
    ]);
  });

  it('rejects an Any whose type URL names no message', () => {
    const value = {
      accessLog: [{ name: 'a', typedConfig: { '@type': 'type.googleapis.com/no.such.Type' } }],
    };
    assert.deepEqual(problemsOf('envoy.config.listener.v3.Filter', filter(value)), [
      `${base}.accessLog[0].typedConfig.@type: type URL "type.googleapis.com/no.such.Type" names no message of the real protos`,
    ]);
  });

  it('rejects a TypedStruct whose type_url names no message', () => {
    const doc = {
      name: 'f',
      typed_config: { '@type': 'type.googleapis.com/xds.type.v3.TypedStruct', type_url: 'x/y.Z' },
    };
    assert.deepEqual(problemsOf('envoy.config.listener.v3.Filter', doc), [
      '$.typed_config.type_url: type URL "x/y.Z" names no message of the real protos',
    ]);
  });

  it('rejects two members of a oneof', () => {
    const value = { routeConfig: { routes: [{ match: { methodName: '', serviceName: 'svc' } }] } };
    assert.deepEqual(problemsOf('envoy.config.listener.v3.Filter', filter(value)), [
      `${base}.routeConfig.routes[0].match.serviceName: oneof match_specifier is already set by "methodName"`,
    ]);
  });

  it('rejects a field given by both its names', () => {
    assert.deepEqual(
      problemsOf('envoy.config.listener.v3.Filter', filter({ statPrefix: 'a', stat_prefix: 'b' })),
      [`${base}.stat_prefix: field stat_prefix is given twice ("statPrefix" and "stat_prefix")`],
    );
  });

  it('checks the well-known types in their JSON forms', () => {
    const value = {
      maxRequestsPerConnection: { value: 3 },
      routeConfig: {
        routes: [
          {
            match: { methodName: '' },
            route: {
              cluster: 'c',
              requestMirrorPolicies: [
                {
                  cluster: 'm',
                  runtimeFraction: { defaultValue: { numerator: -1, denominator: 'BILLION' } },
                },
              ],
            },
          },
        ],
      },
    };
    const mirror = `${base}.routeConfig.routes[0].route.requestMirrorPolicies[0].runtimeFraction.defaultValue`;
    assert.deepEqual(problemsOf('envoy.config.listener.v3.Filter', filter(value)), [
      `${base}.maxRequestsPerConnection: an integer (uint32) is expected, not an object`,
      `${mirror}.numerator: -1 is out of uint32 range`,
      `${mirror}.denominator: "BILLION" is not a value of enum envoy.type.v3.FractionalPercent.DenominatorType`,
    ]);
    const cluster = {
      name: 'c',
      connectTimeout: '10',
      circuitBreakers: { thresholds: [{ maxRetries: '4294967296' }] },
    };
    assert.deepEqual(problemsOf('envoy.config.cluster.v3.Cluster', cluster), [
      '$.connectTimeout: a Duration must be a string like "1.5s", not a string ("10")',
      '$.circuitBreakers.thresholds[0].maxRetries: 4294967296 is out of uint32 range',
    ]);
  });

  it('parses nested Anys and TypedStructs as their types', () => {
    const rbac = {
      '@type': 'type.googleapis.com/envoy.extensions.filters.network.rbac.v3.RBAC',
      rules: {
        action: 'DENY',
        policies: { p: { permissions: [{ any: true }], principals: [{ any: 'yes' }] } },
      },
    };
    const doc = {
      name: 'envoy.filters.network.dubbo_proxy',
      typed_config: {
        '@type': 'type.googleapis.com/udpa.type.v1.TypedStruct',
        type_url: 'type.googleapis.com/envoy.extensions.filters.network.dubbo_proxy.v3.DubboProxy',
        value: { dubboFilters: [{ name: 'envoy.filters.dubbo.rbac', config: rbac }] },
      },
    };
    assert.deepEqual(problemsOf('envoy.config.listener.v3.Filter', doc), [
      `${base}.dubboFilters[0].config.rules.policies.p.principals[0].any: a bool is expected, not a string ("yes")`,
    ]);
  });

  it('rejects what Envoy disallows by default', () => {
    const route = {
      virtualHosts: [{ name: 'v', domains: ['*'], rateLimits: [{ actions: [{ dynamicMetadata: {} }] }] }],
    };
    assert.deepEqual(problemsOf('envoy.config.route.v3.RouteConfiguration', route), [
      '$.virtualHosts[0].rateLimits[0].actions[0].dynamicMetadata: field dynamic_metadata is deprecated and disallowed by default in Envoy',
    ]);
  });

  it('finds an unknown key added anywhere in the largest rendered EnvoyFilter and route of examples/', () => {
    const largest = (routes: boolean): unknown => {
      const options = {
        files: [examplesDir],
        output: 'json',
        rootNamespace: 'istio-system',
        namespaceScope: false,
      } as const;
      const items = JSON.parse(render({ ...options, routes }).stdout).items as Json[];
      const docs = routes ? items : items.map((i: any) => i.spec.configPatches[0].patch.value as Json);
      return docs.reduce((a, b) => (JSON.stringify(b).length > JSON.stringify(a).length ? b : a));
    };
    const targets: [string, unknown][] = [
      ['envoy.config.listener.v3.Filter', largest(false)],
      ['envoy.config.route.v3.RouteConfiguration', largest(true)],
    ];
    let objects = 0;
    for (const [type, doc] of targets) {
      assert.deepEqual(problemsOf(type, doc), []);
      const keyPaths: string[][] = [];
      const walk = (v: unknown, at: string[]): void => {
        if (isObject(v)) keyPaths.push(at);
        if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
      };
      walk(doc, []);
      for (const at of keyPaths) {
        const copy = structuredClone(doc) as Json;
        const target = at.reduce<Json>((o, k) => o[k] as Json, copy);
        target['zzUnknown'] = 1;
        const expected = [...at, 'zzUnknown'].reduce<string>(
          (p, k) => childPath(p, /^\d+$/.test(k) ? Number(k) : k),
          '$',
        );
        assert.deepEqual(
          checker.check(type, copy).map((p) => p.path),
          [expected],
        );
        objects++;
      }
    }
    assert.ok(objects > 40, `only ${objects} objects`);
  });

  it('loads only the files it needs', () => {
    const fresh = new RealProtos();
    fresh.type('envoy.type.v3.Percent');
    assert.ok(fresh.loadedFiles < 10, `${fresh.loadedFiles} files parsed for envoy.type.v3.Percent`);
  });

  it('names paths of keys that are not plain names', () => {
    assert.equal(
      childPath('$.a', 'envoy.filters.network.redis_proxy'),
      '$.a["envoy.filters.network.redis_proxy"]',
    );
    assert.equal(childPath('$.a', '@type'), '$.a.@type');
    assert.equal(childPath('$.a', 2), '$.a[2]');
  });
});

describe('generated documents parse against the real protos', () => {
  const documents: CheckedDocument[] = [
    ...loadCases().flatMap((c) => renderBoth(c.name, [c.input], optionsOf(c))),
    ...renderBoth('examples', [examplesDir], {
      routes: false,
      rootNamespace: 'istio-system',
      namespaceScope: false,
    }),
  ];
  const unmatched = new Set(KNOWN_PROBLEMS);

  it('covers EnvoyFilters and routes', () => {
    assert.ok(
      documents.some((d) => d.name.includes(': EnvoyFilter ')),
      'no EnvoyFilter rendered',
    );
    assert.ok(
      documents.some((d) => d.name.includes(': route ')),
      'no route rendered',
    );
  });

  for (const d of documents) {
    const known = d.problems.map((p) => ({
      problem: p,
      entry: KNOWN_PROBLEMS.find((k) => k.path.test(p.path) && p.message.includes(k.message)),
    }));
    it(d.name, () => {
      const rest = known.filter((k) => k.entry === undefined).map((k) => formatProblem(k.problem));
      assert.deepEqual(rest, [], `${d.name} does not parse:\n${rest.join('\n')}`);
    });
    for (const { problem, entry } of known) {
      if (entry === undefined) continue;
      unmatched.delete(entry);
      it(`${d.name}: ${formatProblem(problem)}`, { todo: entry.reason }, () =>
        assert.fail(formatProblem(problem)),
      );
    }
  }

  it('every known problem still occurs', () => {
    assert.deepEqual(
      [...unmatched].map((k) => `${k.path.source}: ${k.message}`),
      [],
      'fixed: remove from KNOWN_PROBLEMS',
    );
  });
});
