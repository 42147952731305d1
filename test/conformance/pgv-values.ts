// protoc-gen-validate's rules on one value (a scalar, an enum, a Duration, an Any's type URL), as the C++
// validators Envoy is built with evaluate them: bufbuild/protoc-gen-validate v1.3.3 (the version Envoy v1.38.3
// pins), templates/cc/{string,bytes,num,ltgt,const,in,enum,duration,any}.go and module/checker.go (which turns
// `well_known_regex` into a `pattern`). Values come as proto3 JSON; a value of the wrong JSON type is left to the
// strict parser (real-protos.ts) and gives no violation here.
import type protobuf from 'protobufjs';
import { isObject } from './real-protos.ts';

/** A `validate.FieldRules` (or one of its parts) as protobufjs parses the option: rule name → value. */
export type Rules = Readonly<Record<string, unknown>>;

/** One broken rule: which (`string.min_len`) and how. */
export interface Violation {
  readonly rule: string;
  readonly detail: string;
}

/** The rules this checker evaluates, by kind (validate.proto's FieldRules `type` oneof and `message`). */
const NUMBER_RULES = ['const', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in', 'ignore_empty'];
const INTEGER_KINDS = ['int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64'];
const FIXED_KINDS = ['fixed32', 'fixed64', 'sfixed32', 'sfixed64'];
export const SUPPORTED_RULES: Readonly<Record<string, readonly string[]>> = {
  ...Object.fromEntries(['float', 'double', ...INTEGER_KINDS, ...FIXED_KINDS].map((k) => [k, NUMBER_RULES])),
  bool: ['const'],
  string: [
    ...['const', 'len', 'min_len', 'max_len', 'len_bytes', 'min_bytes', 'max_bytes', 'pattern', 'prefix'],
    ...['suffix', 'contains', 'not_contains', 'in', 'not_in', 'ip', 'ipv4', 'ipv6', 'address', 'hostname'],
    ...['uuid', 'well_known_regex', 'strict', 'ignore_empty'],
  ],
  bytes: ['const', 'len', 'min_len', 'max_len', 'prefix', 'suffix', 'contains', 'in', 'not_in'].concat([
    'ip',
    'ipv4',
    'ipv6',
    'ignore_empty',
  ]),
  enum: ['const', 'defined_only', 'in', 'not_in'],
  message: ['skip', 'required'],
  repeated: ['min_items', 'max_items', 'unique', 'items', 'ignore_empty'],
  map: ['min_pairs', 'max_pairs', 'keys', 'values', 'ignore_empty'],
  any: ['required', 'in', 'not_in'],
  duration: ['required', 'const', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in'],
  timestamp: ['required'],
};

/** The rules of `rules` (a FieldRules) this checker does not evaluate, as `kind.rule` (nested: `repeated.items.…`). */
export function unsupportedRules(rules: Rules, prefix = ''): string[] {
  const out: string[] = [];
  for (const [kind, body] of Object.entries(rules)) {
    const known = SUPPORTED_RULES[kind];
    if (known === undefined || !isObject(body)) {
      out.push(`${prefix}${kind}`);
      continue;
    }
    for (const [rule, value] of Object.entries(body)) {
      if (!known.includes(rule)) out.push(`${prefix}${kind}.${rule}`);
      else if (['items', 'keys', 'values'].includes(rule) && isObject(value))
        out.push(...unsupportedRules(value, `${prefix}${kind}.${rule}.`));
    }
  }
  return out;
}

// module/checker.go: the patterns `well_known_regex` stands for (non-strict headers: HEADER_STRING).
const HTTP_HEADER_NAME = /^:?[0-9a-zA-Z!#$%&'*+-.^_|~`]+$/u;
// eslint-disable-next-line no-control-regex
const HTTP_HEADER_VALUE = /^[^\u0000-\u0008\u000A-\u001F\u007F]*$/u;
// eslint-disable-next-line no-control-regex
const HEADER_STRING = /^[^\u0000\u000A\u000D]*$/u;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/** 4 or 6 when `s` is an IPv4 or IPv6 address as inet_pton reads it (PGV's IsIpv4/IsIpv6), else 0. */
function isIP(s: string): 0 | 4 | 6 {
  if (IPV4.test(s)) return 4;
  if (!s.includes(':') || /[^0-9A-Fa-f:.]/.test(s)) return 0;
  try {
    return new URL(`http://[${s}]/`).hostname !== '' ? 6 : 0; // the WHATWG URL parser's IPv6 grammar
  } catch {
    return 0;
  }
}

/** An ordered value: a bigint (integers, Duration nanoseconds) or a number (float, double). */
type Ordered = bigint | number;

const show = (v: unknown): string =>
  typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? JSON.stringify(v) : String(v);

/** templates/cc/ltgt.go (and duration.go): one bound, or a range inside (lower < upper) or outside it. */
function bounds(kind: string, r: Rules, v: Ordered, of: (x: unknown) => Ordered, fmt = show): Violation[] {
  const bad = (rule: string, detail: string): Violation[] => [{ rule: `${kind}.${rule}`, detail }];
  const upperKey = 'lt' in r ? 'lt' : 'lte' in r ? 'lte' : undefined;
  const lowerKey = 'gt' in r ? 'gt' : 'gte' in r ? 'gte' : undefined;
  const above = (key: string, b: Ordered) => (key === 'lt' ? v >= b : v > b); // breaks the upper bound
  const below = (key: string, b: Ordered) => (key === 'gt' ? v <= b : v < b); // breaks the lower bound
  if (upperKey !== undefined && lowerKey !== undefined) {
    const up = of(r[upperKey]);
    const low = of(r[lowerKey]);
    const rule = `${lowerKey}/${upperKey}`;
    if (up > low) {
      if (below(lowerKey, low) || above(upperKey, up))
        return bad(rule, `${fmt(v)} must be inside ${lowerKey} ${fmt(low)}, ${upperKey} ${fmt(up)}`);
    } else if (above(upperKey, up) && below(lowerKey, low)) {
      return bad(rule, `${fmt(v)} must be outside ${upperKey} ${fmt(up)}, ${lowerKey} ${fmt(low)}`);
    }
    return [];
  }
  if (upperKey !== undefined && above(upperKey, of(r[upperKey])))
    return bad(upperKey, `${fmt(v)} must be ${upperKey === 'lt' ? '<' : '<='} ${fmt(of(r[upperKey]))}`);
  if (lowerKey !== undefined && below(lowerKey, of(r[lowerKey])))
    return bad(lowerKey, `${fmt(v)} must be ${lowerKey === 'gt' ? '>' : '>='} ${fmt(of(r[lowerKey]))}`);
  return [];
}

/** const, in and not_in (templates/cc/const.go, in.go), by equality of `key`. */
function membership<T>(kind: string, r: Rules, v: T, of: (x: unknown) => T, fmt = show): Violation[] {
  const out: Violation[] = [];
  const same = (a: T, b: T) => (Buffer.isBuffer(a) && Buffer.isBuffer(b) ? a.equals(b) : a === b);
  if ('const' in r && !same(v, of(r['const'])))
    out.push({ rule: `${kind}.const`, detail: `${fmt(v)} must equal ${fmt(of(r['const']))}` });
  const list = (k: string) => (Array.isArray(r[k]) ? (r[k] as unknown[]) : r[k] === undefined ? [] : [r[k]]);
  const inList = list('in').map(of);
  if (inList.length > 0 && !inList.some((x) => same(v, x)))
    out.push({ rule: `${kind}.in`, detail: `${fmt(v)} must be one of ${inList.map(fmt).join(', ')}` });
  const notIn = list('not_in').map(of);
  if (notIn.some((x) => same(v, x)))
    out.push({ rule: `${kind}.not_in`, detail: `${fmt(v)} must not be one of ${notIn.map(fmt).join(', ')}` });
  return out;
}

/** A JSON number value of `kind` as an Ordered, or undefined when it is not one (the strict parser says why). */
export function numberOf(kind: string, v: unknown): Ordered | undefined {
  if (kind === 'float' || kind === 'double') {
    if (typeof v === 'number') return v;
    if (v === 'NaN') return Number.NaN;
    if (v === 'Infinity' || v === '-Infinity') return Number(v);
    return typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : undefined;
  }
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  return undefined;
}

/** Numbers (templates/cc/num.go): ignore_empty, const, the bounds, in, not_in. */
export function numberViolations(kind: string, r: Rules, json: unknown): Violation[] {
  const v = numberOf(kind, json);
  if (v === undefined) return [];
  if (r['ignore_empty'] === true && (v === 0 || v === 0n)) return [];
  const of = (x: unknown) => numberOf(kind, x) ?? Number.NaN;
  return [...membership(kind, r, v, of), ...bounds(kind, r, v, of)];
}

const lengthRules = (kind: string, r: Rules, n: number, unit: string, keys: [string, string, string]) => {
  const [len, min, max] = keys;
  const out: Violation[] = [];
  if (len in r && n !== Number(r[len]))
    out.push({ rule: `${kind}.${len}`, detail: `length must be ${String(r[len])} ${unit}, not ${n}` });
  if (min in r && n < Number(r[min]))
    out.push({
      rule: `${kind}.${min}`,
      detail: `length must be at least ${String(r[min])} ${unit}, not ${n}`,
    });
  if (max in r && n > Number(r[max]))
    out.push({
      rule: `${kind}.${max}`,
      detail: `length must be at most ${String(r[max])} ${unit}, not ${n}`,
    });
  return out;
};

function isHostname(s: string): boolean {
  const host = s.endsWith('.') ? s.slice(0, -1) : s;
  if (s.length > 253) return false;
  return host
    .split('.')
    .every((p) => p.length > 0 && p.length <= 63 && /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/.test(p));
}

/** The regular expression a string must fully match (RE2::FullMatch), or undefined. */
function patternOf(r: Rules): RegExp | undefined {
  const known = r['well_known_regex'];
  if (known === 'HTTP_HEADER_NAME' || known === 1)
    return r['strict'] === false ? HEADER_STRING : HTTP_HEADER_NAME;
  if (known === 'HTTP_HEADER_VALUE' || known === 2)
    return r['strict'] === false ? HEADER_STRING : HTTP_HEADER_VALUE;
  return typeof r['pattern'] === 'string' ? new RegExp(`^(?:${r['pattern']})$`, 'u') : undefined;
}

/** Strings (templates/cc/string.go): lengths in characters (UTF-8 code points) and bytes, affixes, patterns. */
export function stringViolations(r: Rules, s: unknown): Violation[] {
  if (typeof s !== 'string' || (r['ignore_empty'] === true && s === '')) return [];
  const out: Violation[] = [...membership('string', r, s, String)];
  out.push(...lengthRules('string', r, [...s].length, 'characters', ['len', 'min_len', 'max_len']));
  const bytes = Buffer.byteLength(s, 'utf8');
  out.push(...lengthRules('string', r, bytes, 'bytes', ['len_bytes', 'min_bytes', 'max_bytes']));
  const check = (rule: string, ok: boolean, what: string) => {
    if (!ok) out.push({ rule: `string.${rule}`, detail: `${show(s)} ${what}` });
  };
  const text = (k: string) => String(r[k]);
  if ('prefix' in r) check('prefix', s.startsWith(text('prefix')), `must start with ${show(text('prefix'))}`);
  if ('suffix' in r) check('suffix', s.endsWith(text('suffix')), `must end with ${show(text('suffix'))}`);
  if ('contains' in r)
    check('contains', s.includes(text('contains')), `must contain ${show(text('contains'))}`);
  if ('not_contains' in r)
    check(
      'not_contains',
      !s.includes(text('not_contains')),
      `must not contain ${show(text('not_contains'))}`,
    );
  const pattern = patternOf(r);
  const rule = 'well_known_regex' in r ? 'well_known_regex' : 'pattern';
  if (pattern !== undefined) check(rule, pattern.test(s), `must match ${pattern.source}`);
  if (r['ip'] === true) check('ip', isIP(s) !== 0, 'must be an IP address');
  if (r['ipv4'] === true) check('ipv4', isIP(s) === 4, 'must be an IPv4 address');
  if (r['ipv6'] === true) check('ipv6', isIP(s) === 6, 'must be an IPv6 address');
  if (r['hostname'] === true) check('hostname', isHostname(s), 'must be a hostname');
  if (r['address'] === true) check('address', isHostname(s) || isIP(s) !== 0, 'must be a hostname or IP');
  if (r['uuid'] === true) check('uuid', UUID.test(s), 'must be a UUID');
  return out;
}

/** Bytes (templates/cc/bytes.go); the JSON form is base64 (standard or URL-safe), rule values are byte strings. */
export function bytesViolations(r: Rules, json: unknown): Violation[] {
  if (typeof json !== 'string') return [];
  const b = Buffer.from(json.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (r['ignore_empty'] === true && b.length === 0) return [];
  const of = (x: unknown) => (Buffer.isBuffer(x) ? x : Buffer.from(String(x), 'latin1'));
  const hex = (x: unknown) => `0x${of(x).toString('hex')}`;
  const out: Violation[] = [...membership('bytes', r, b, of, hex)];
  out.push(...lengthRules('bytes', r, b.length, 'bytes', ['len', 'min_len', 'max_len']));
  const check = (rule: string, ok: boolean, what: string) => {
    if (!ok) out.push({ rule: `bytes.${rule}`, detail: `${hex(b)} ${what}` });
  };
  if ('prefix' in r)
    check('prefix', b.subarray(0, of(r['prefix']).length).equals(of(r['prefix'])), 'lacks the prefix');
  if ('suffix' in r)
    check(
      'suffix',
      b.subarray(b.length - of(r['suffix']).length).equals(of(r['suffix'])),
      'lacks the suffix',
    );
  if ('contains' in r) check('contains', b.includes(of(r['contains'])), `must contain ${hex(r['contains'])}`);
  if (r['ip'] === true) check('ip', b.length === 4 || b.length === 16, 'must be 4 or 16 bytes');
  if (r['ipv4'] === true) check('ipv4', b.length === 4, 'must be 4 bytes');
  if (r['ipv6'] === true) check('ipv6', b.length === 16, 'must be 16 bytes');
  return out;
}

export const boolViolations = (r: Rules, v: unknown): Violation[] =>
  typeof v === 'boolean' ? membership('bool', r, v, (x) => x === true) : [];

/** Enums (templates/cc/enum.go): by number, whether the JSON gives the name or the number. */
export function enumViolations(e: protobuf.Enum, r: Rules, json: unknown): Violation[] {
  const n = typeof json === 'string' ? e.values[json] : typeof json === 'number' ? json : undefined;
  if (n === undefined) return [];
  const of = (x: unknown) => (typeof x === 'string' ? (e.values[x] ?? Number.NaN) : Number(x));
  const name = (x: unknown) => e.valuesById[Number(x)] ?? String(x);
  const out = membership('enum', r, n, of, name);
  if (r['defined_only'] === true && e.valuesById[n] === undefined)
    out.push({ rule: 'enum.defined_only', detail: `${n} is not a value of ${e.fullName.slice(1)}` });
  return out;
}

/** A Duration (JSON `"1.5s"`, or a rule's `{seconds, nanos}`) in nanoseconds; undefined when it is neither. */
export function nanosOf(d: unknown): bigint | undefined {
  if (typeof d === 'string') {
    const m = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(d);
    if (m === null) return undefined;
    const abs = BigInt(m[2] ?? '0') * 1_000_000_000n + BigInt((m[3] ?? '').padEnd(9, '0'));
    return m[1] === '-' ? -abs : abs;
  }
  if (!isObject(d)) return undefined;
  const int = (x: unknown) => (typeof x === 'number' || typeof x === 'string' ? BigInt(x) : 0n);
  return int(d['seconds']) * 1_000_000_000n + int(d['nanos']);
}

const showNanos = (n: unknown) => {
  const v = typeof n === 'bigint' ? n : 0n;
  const abs = v < 0n ? -v : v;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${v < 0n ? '-' : ''}${abs / 1_000_000_000n}${frac === '' ? '' : `.${frac}`}s`;
};

/** A set Duration (templates/cc/duration.go): const, the bounds, in, not_in. */
export function durationViolations(r: Rules, json: unknown): Violation[] {
  const v = nanosOf(json);
  if (v === undefined) return [];
  const of = (x: unknown) => nanosOf(x) ?? 0n;
  return [...membership('duration', r, v, of, showNanos), ...bounds('duration', r, v, of, showNanos)];
}

/** A set Any (templates/cc/any.go): its type URL in `in`, not in `not_in`. */
export function anyViolations(r: Rules, json: unknown): Violation[] {
  if (!isObject(json) || typeof json['@type'] !== 'string') return [];
  return membership('any', r, json['@type'], String);
}
