// proto3 JSON -> protobuf binary for the waypoint's resources (src/xds-rds/proto-json.ts): every shape of the
// issue-39 brief round-trips (encode, decode, compare), passes the protos-2026 check, and bad input throws naming
// the JSON path.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LISTENER_TYPE } from '../../src/model/ambient/xds.ts';
import { decodeJson, encodeJson } from '../../src/xds-rds/proto-json.ts';
import { xdsProblems } from '../conformance/xds-check.ts';
import { gatewayServices, LISTENER_TEMPLATE } from './ads-shapes.ts';

const TYPED_STRUCT = 'type.googleapis.com/xds.type.v3.TypedStruct';
const CHAIN = 'type.googleapis.com/envoy.config.listener.v3.FilterChain';

function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** Durations in canonical form (0, 3, 6 or 9 fractional digits). */
function duration(s: string): string {
  const m = /^(\d+)(?:\.(\d+))?s$/.exec(s);
  if (!m) return s;
  let frac = (m[2] ?? '').padEnd(9, '0');
  while (frac.endsWith('000')) frac = frac.slice(0, -3);
  return `${m[1]}${frac ? `.${frac}` : ''}s`;
}

/** What the decoder gives back for `json`: lowerCamelCase keys (not inside a Struct), canonical durations. */
function canonical(json: unknown, inStruct = false): unknown {
  if (Array.isArray(json)) return json.map((v) => canonical(v, inStruct));
  if (typeof json === 'string') return inStruct ? json : duration(json);
  if (json === null || typeof json !== 'object') return json;
  const o = json as Record<string, unknown>;
  const typedStruct = o['@type'] === TYPED_STRUCT;
  return Object.fromEntries(
    Object.entries(o)
      // proto3 leaves default values out: RBAC's action ALLOW is its enum's 0.
      .filter(([k, v]) => inStruct || !(k === 'action' && v === 'ALLOW'))
      .map(([k, v]) => [
        inStruct || k === 'policies' ? k : camel(k),
        canonical(v, inStruct || (typedStruct && k === 'value')),
      ]),
  );
}

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortDeep((v as Record<string, unknown>)[k])]),
  );
}

function roundTrip(typeUrl: string, json: unknown): void {
  const decoded = decodeJson(typeUrl, encodeJson(typeUrl, json));
  assert.deepEqual(sortDeep(decoded), sortDeep(canonical(json)));
  // The canonical form encodes to the same thing again (lowerCamelCase keys accepted).
  assert.deepEqual(sortDeep(decodeJson(typeUrl, encodeJson(typeUrl, decoded))), sortDeep(decoded));
}

describe('proto-json', () => {
  it('round-trips the listener template and passes the protos-2026 check', () => {
    roundTrip(LISTENER_TYPE, LISTENER_TEMPLATE);
    assert.deepEqual(xdsProblems(LISTENER_TYPE, LISTENER_TEMPLATE), []);
  });

  for (const [service, c] of gatewayServices()) {
    it(`round-trips every chain and resource of ${service}`, () => {
      for (const chain of c.chains) {
        roundTrip(CHAIN, chain);
        assert.deepEqual(xdsProblems(CHAIN, chain), []);
      }
      for (const r of c.resources) {
        roundTrip(r.typeUrl, r.json);
        assert.deepEqual(xdsProblems(r.typeUrl, r.json), [], r.name);
      }
    });
  }

  it('reads durations, wrappers, enums by name or number and 64-bit integers as strings or numbers', () => {
    const c = decodeJson(
      'type.googleapis.com/envoy.config.cluster.v3.Cluster',
      encodeJson('type.googleapis.com/envoy.config.cluster.v3.Cluster', {
        name: 'c',
        connectTimeout: '0.5s',
        type: 3,
        per_connection_buffer_limit_bytes: 1024,
      }),
    );
    assert.deepEqual(c, {
      name: 'c',
      connectTimeout: '0.500s',
      type: 'EDS',
      perConnectionBufferLimitBytes: 1024,
    });
    const range = decodeJson(
      'envoy.type.v3.Int64Range',
      encodeJson('envoy.type.v3.Int64Range', { start: '-5', end: 9007199254740991 }),
    );
    assert.deepEqual(range, { start: '-5', end: '9007199254740991' });
    const big = decodeJson(
      'envoy.type.v3.Int64Range',
      encodeJson('envoy.type.v3.Int64Range', { end: '9223372036854775807' }),
    );
    assert.deepEqual(big, { end: '9223372036854775807' });
  });

  it('reads a Struct with nested lists, objects and null', () => {
    const ts = {
      '@type': TYPED_STRUCT,
      type_url: 'type.googleapis.com/x.Y',
      value: { a: [1, 'b', null, { c: true }] },
    };
    const chain = { name: 'n', filters: [{ name: 'f', typed_config: ts }] };
    roundTrip(CHAIN, chain);
  });

  const refusals: [string, unknown, RegExp][] = [
    [
      'an unknown key',
      { name: 'x', bogus: 1 },
      /\$\.bogus: envoy\.config\.listener\.v3\.Listener has no field "bogus"/,
    ],
    [
      'an unknown @type',
      { listener_filters: [{ name: 'f', typed_config: { '@type': 'type.googleapis.com/nope.Nope' } }] },
      /\$\.listener_filters\[0\]\.typed_config\.@type: unknown message type/,
    ],
    [
      'an Any without @type',
      { listener_filters: [{ name: 'f', typed_config: { rules: [] } }] },
      /\$\.listener_filters\[0\]\.typed_config: an Any needs "@type"/,
    ],
    [
      'an unknown key inside an Any',
      {
        listener_filters: [
          {
            name: 'f',
            typed_config: {
              '@type':
                'type.googleapis.com/envoy.extensions.filters.listener.proxy_protocol.v3.ProxyProtocol',
              rulez: [],
            },
          },
        ],
      },
      /\$\.listener_filters\[0\]\.typed_config\.rulez: .*ProxyProtocol has no field "rulez"/,
    ],
    [
      'a bad duration',
      { listener_filters_timeout: '5m' },
      /\$\.listener_filters_timeout: "5m" is not a Duration/,
    ],
    [
      'an unknown enum name',
      { traffic_direction: 'SIDEWAYS' },
      /\$\.traffic_direction: .* is not a value of enum/,
    ],
    [
      'a string for a number',
      { address: { socket_address: { port_value: 'x' } } },
      /\$\.address\.socket_address\.port_value: .* is not a valid uint32/,
    ],
    [
      'an out-of-range number',
      { address: { socket_address: { port_value: -1 } } },
      /port_value: -1 is out of range for uint32/,
    ],
    ['an object for a list', { filter_chains: {} }, /\$\.filter_chains: a repeated field must be a list/],
    [
      'two members of one oneof',
      { address: { socket_address: { port_value: 1, named_port: 'x' } } },
      /\$\.address\.socket_address\.named_port: "port_value" and "named_port" are both of oneof portSpecifier/,
    ],
    [
      'the same field twice',
      { name: 'a', Name: 'b', stat_prefix: 's', statPrefix: 't' },
      /has no field "Name"|given twice/,
    ],
  ];
  for (const [what, json, message] of refusals) {
    it(`refuses ${what}, naming the JSON path`, () => {
      assert.throws(() => encodeJson(LISTENER_TYPE, json), message);
    });
  }

  it('refuses a key given both as snake_case and lowerCamelCase', () => {
    assert.throws(
      () => encodeJson(LISTENER_TYPE, { stat_prefix: 's', statPrefix: 't' }),
      /\$\.statPrefix: field "statPrefix" given twice/,
    );
  });
});
