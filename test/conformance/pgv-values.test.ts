// The protoc-gen-validate rules no message of protos-2026 uses (so no Envoy message can show them), on a small proto
// of the test's own that imports protos-2026's validate/validate.proto: string, number, enum, bytes, Duration and
// Any rules beyond Envoy's, inside/outside ranges, ignore_empty on lists and maps, map values and max_pairs,
// proto3 optional fields and `(validate.disabled)` messages. And which rules the checker leaves out.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PgvChecker } from './pgv-rules.ts';
import { unsupportedRules } from './pgv-values.ts';
import { RealProtos } from './real-protos.ts';
import { PROTOS_2026_DIR } from './xds-check.ts';

const PROTO = `syntax = "proto3";
package pgvtest;
import "${path.join(PROTOS_2026_DIR, 'validate/validate.proto')}";
import "google/protobuf/any.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
message Strings {
  string a = 1 [(validate.rules).string = {max_len: 3}];
  string b = 2 [(validate.rules).string = {len: 2 contains: "x"}];
  string c = 3 [(validate.rules).string = {len_bytes: 2 not_contains: "/"}];
  string d = 4 [(validate.rules).string = {const: "ok" ignore_empty: true}];
  string e = 5 [(validate.rules).string = {not_in: "bad" not_in: "worse"}];
  string ip = 6 [(validate.rules).string.ip = true];
  string v4 = 7 [(validate.rules).string.ipv4 = true];
  string v6 = 8 [(validate.rules).string.ipv6 = true];
  string host = 9 [(validate.rules).string.hostname = true];
  string addr = 10 [(validate.rules).string.address = true];
  string id = 11 [(validate.rules).string.uuid = true];
}
message Numbers {
  int64 inside = 1 [(validate.rules).int64 = {gt: -5 lt: 5}];
  int64 outside = 2 [(validate.rules).int64 = {gt: 5 lt: -5}];
  sint32 k = 3 [(validate.rules).sint32.const = 7];
  fixed64 one_of = 4 [(validate.rules).fixed64 = {in: [1, 3]}];
  float f = 5 [(validate.rules).float = {not_in: [1.5] ignore_empty: true gte: 1}];
  google.protobuf.Int32Value w = 6 [(validate.rules).int32 = {lte: 10}];
  optional uint32 opt = 7 [(validate.rules).uint32.gte = 9];
}
enum Color { RED = 0; GREEN = 1; BLUE = 2; }
message Others {
  Color c = 1 [(validate.rules).enum = {in: [1, 2]}];
  Color k = 2 [(validate.rules).enum.const = 2];
  bytes b = 3 [(validate.rules).bytes = {len: 2 prefix: "\\x01" ignore_empty: true}];
  bytes v4 = 4 [(validate.rules).bytes.ipv4 = true];
  bytes n = 5 [(validate.rules).bytes = {not_in: ["\\x00"] suffix: "\\x00" contains: "\\x00"}];
  google.protobuf.Duration d = 6 [(validate.rules).duration = {in: [{seconds: 1}, {nanos: 500000000}]}];
  google.protobuf.Duration e = 7 [(validate.rules).duration = {const: {seconds: 2} lte: {seconds: 1}}];
  google.protobuf.Any a = 8 [(validate.rules).any = {in: "type.googleapis.com/google.protobuf.Duration"}];
  google.protobuf.Any z = 9 [(validate.rules).any = {not_in: "type.googleapis.com/pgvtest.Off"}];
  repeated string r = 10 [(validate.rules).repeated = {min_items: 2 ignore_empty: true unique: true}];
  map<string, int32> m = 11 [(validate.rules).map = {max_pairs: 1 values: {int32: {gt: 0}} ignore_empty: true}];
  Off off = 12;
}
message Off {
  option (validate.disabled) = true;
  string s = 1 [(validate.rules).string.min_len = 1];
}
`;

const dir = mkdtempSync(path.join(tmpdir(), 'pgv-'));
writeFileSync(path.join(dir, 'pgvtest.proto'), PROTO);
after(() => rmSync(dir, { recursive: true, force: true }));
const checker = new PgvChecker(new RealProtos(dir));

/** `<path> <rule>` of each broken rule. */
const broken = (type: string, json: unknown) =>
  checker
    .check(`pgvtest.${type}`, json)
    .map((p) => `${p.path} ${/\(\(validate\.rules\)\.(.+)\)$/.exec(p.message)?.[1]}`);

describe('validation rules no Envoy message of protos-2026 uses', () => {
  it('string lengths, substrings, in/not_in and the well-known formats', () => {
    const good = { a: 'abc', b: 'xé', c: 'é', d: 'ok', e: 'fine', ip: '::1', v4: '10.0.0.1', v6: 'fe80::1' };
    const rest = { host: 'a-b.example.com.', addr: '10.0.0.1', id: '123e4567-e89b-12d3-a456-426614174000' };
    assert.deepEqual(broken('Strings', { ...good, ...rest }), []);
    assert.deepEqual(broken('Strings', { ...good, ...rest, d: '' }), [], 'ignore_empty');
    const bad = { a: 'abcd', b: 'xyz', c: 'a/', d: 'no', e: 'worse', ip: '1.2.3', v4: '::1', v6: '10.0.0.1' };
    assert.deepEqual(broken('Strings', { ...bad, host: '-a.com', addr: 'a_b', id: 'x' }), [
      '$.a string.max_len',
      '$.b string.len',
      '$.c string.not_contains',
      '$.d string.const',
      '$.e string.not_in',
      '$.ip string.ip',
      '$.v4 string.ipv4',
      '$.v6 string.ipv6',
      '$.host string.hostname',
      '$.addr string.address',
      '$.id string.uuid',
    ]);
    assert.deepEqual(broken('Strings', { ...good, ...rest, b: 'ab', c: 'ab' }), ['$.b string.contains']);
  });

  it('numbers: a range inside or outside its bounds, const, in, not_in, ignore_empty, wrappers, proto3 optional', () => {
    const good = { inside: '4', outside: 6, k: 7, one_of: '3', f: 2, w: 10 };
    assert.deepEqual(broken('Numbers', good), []);
    assert.deepEqual(
      broken('Numbers', { ...good, outside: -6, f: 0 }),
      [],
      'outside the range; ignore_empty',
    );
    assert.deepEqual(broken('Numbers', { inside: 5, outside: 0, k: 8, one_of: 2, f: 1.5, w: 11, opt: 8 }), [
      '$.inside int64.gt/lt',
      '$.outside int64.gt/lt',
      '$.k sint32.const',
      '$.one_of fixed64.in',
      '$.f float.not_in',
      '$.w int32.lte',
      '$.opt uint32.gte',
    ]);
    assert.deepEqual(broken('Numbers', { ...good, f: 0.5 }), ['$.f float.gte']);
  });

  it('enums by name or number, bytes, Durations, Any type URLs, lists, maps, disabled messages', () => {
    const good = { c: 'GREEN', k: 2, b: 'AQI=', v4: 'CgAAAQ==', n: 'AQAA', d: '0.5s' };
    const more = {
      a: { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '1s' },
      r: [],
      m: {},
    };
    const off = {
      off: { s: '' },
      z: { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '1s' },
    };
    assert.deepEqual(broken('Others', { ...good, ...more, ...off }), []);
    const bad = { c: 'RED', k: 'GREEN', b: 'AgI=', v4: 'AQ==', n: 'AA==', d: '2s', e: '2s' };
    const worse = {
      a: { '@type': 'type.googleapis.com/pgvtest.Off' },
      z: { '@type': 'type.googleapis.com/pgvtest.Off' },
    };
    assert.deepEqual(broken('Others', { ...bad, ...worse, r: ['x'], m: { a: 1, b: -1 } }), [
      '$.c enum.in',
      '$.k enum.const',
      '$.b bytes.prefix',
      '$.v4 bytes.ipv4',
      '$.n bytes.not_in',
      '$.d duration.in',
      '$.e duration.lte',
      '$.a any.in',
      '$.z any.not_in',
      '$.r repeated.min_items',
      '$.m map.max_pairs',
      '$.m.b map.values.int32.gt',
    ]);
    assert.deepEqual(broken('Others', { ...good, r: ['x', 'x'], n: 'AQ==', e: '1s' }), [
      '$.n bytes.suffix',
      '$.n bytes.contains',
      '$.e duration.const',
      '$.r[1] repeated.unique',
    ]);
  });

  it('the rules the checker leaves out, none of which protos-2026 uses', () => {
    const rules = {
      timestamp: { required: true, lt_now: true },
      string: { email: true, uri: true },
      map: { no_sparse: true },
    };
    assert.deepEqual(
      unsupportedRules({
        ...rules,
        bytes: { pattern: 'x' },
        repeated: { items: { string: { uri_ref: true } } },
      }),
      [
        'timestamp.lt_now',
        'string.email',
        'string.uri',
        'map.no_sparse',
        'bytes.pattern',
        'repeated.items.string.uri_ref',
      ],
    );
  });
});
