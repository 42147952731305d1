// protoc-gen-validate rules of the data planes' protos, checked on proto3 JSON: what Envoy's MessageUtil::validate
// refuses a resource for (envoyproxy/envoy source/common/protobuf/utility.h, read at commit
// 00cce6507f61a110f8ebc91091d06bb698be02c4: "Validate protoc-gen-validate constraints", and `recursivePgvCheck`
// "on the entire message tree, recursing into Any messages"). The rules are the `(validate.rules)` field options,
// `(validate.required)` oneof options and `(validate.disabled)`/`(validate.ignored)` message options of
// validate/validate.proto, which protobufjs keeps as each reflected object's `parsedOptions` (`options` for the
// oneof flag and message flags). The walk follows Proto3JsonChecker's (real-protos.ts): fields by JSON or proto
// name, every Any by its `@type`, every TypedStruct's `value` by its `type_url`. Its semantics are the C++
// validators' (bufbuild/protoc-gen-validate v1.3.3, templates/cc/msg.go, message.go, repeated.go, map.go,
// wrapper.go): a proto3 field outside a oneof is checked even when unset (as its default: "", 0, false, the first
// enum value, an empty list or map); a oneof member, a message, a wrapper and a Duration only when set, apart from
// `required`; a wrapper's rules apply to the value it wraps; every set message is validated in turn unless its
// field says `message.skip`. Every broken rule is reported (the C++ validator stops at the first).
import protobuf from 'protobufjs';
import { childPath, isObject, type JsonObject, type Problem, type RealProtos } from './real-protos.ts';
import {
  anyViolations,
  boolViolations,
  bytesViolations,
  durationViolations,
  enumViolations,
  numberOf,
  numberViolations,
  type Rules,
  stringViolations,
  type Violation,
} from './pgv-values.ts';

const TYPED_STRUCTS = new Set(['.udpa.type.v1.TypedStruct', '.xds.type.v3.TypedStruct']);

/** google.protobuf wrappers: the rule kind (= the scalar type) of the value each wraps. */
const WRAPPERS: Readonly<Record<string, string>> = Object.fromEntries(
  ['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map((w) => [
    `.google.protobuf.${w}Value`,
    w.toLowerCase(),
  ]),
);

const rulesCache = new WeakMap<protobuf.FieldBase, Rules>();

/** The field's `(validate.rules)`, merged when protobufjs keeps them as several entries; {} when it has none. */
export function fieldRules(field: protobuf.FieldBase): Rules {
  const cached = rulesCache.get(field);
  if (cached !== undefined) return cached;
  let merged: JsonObject = {};
  for (const option of field.parsedOptions ?? []) {
    const rules: unknown = option['(validate.rules)'];
    if (isObject(rules)) merged = deepMerge(merged, rules);
  }
  rulesCache.set(field, merged);
  return merged;
}

function deepMerge(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const old = out[k];
    out[k] = isObject(old) && isObject(v) ? deepMerge(old, v) : v;
  }
  return out;
}

/** Whether a message's own rules are switched off (`(validate.disabled)`, or no validator: `(validate.ignored)`). */
export function rulesOff(type: protobuf.Type): boolean {
  const o = type.options ?? {};
  return o['(validate.disabled)'] === true || o['(validate.ignored)'] === true;
}

export function oneofRequired(oneof: protobuf.OneOf): boolean {
  return oneof.options?.['(validate.required)'] === true;
}

const sub = (r: Rules, key: string): Rules => {
  const v = r[key];
  return isObject(v) ? v : {};
};

/** The value of `field` in `json` and the key it is under; a null value is an unset field. */
function valueOf(json: JsonObject, field: protobuf.Field): { key: string; value: unknown } {
  for (const key of [field.name, field.jsonName]) {
    if (key in json && json[key] !== null) return { key, value: json[key] };
  }
  return { key: field.name, value: undefined };
}

/** The default of a proto3 scalar or enum field, as its JSON form. */
function defaultOf(field: protobuf.FieldBase): unknown {
  if (field.resolvedType instanceof protobuf.Enum) return 0;
  if (field.type === 'string' || field.type === 'bytes') return '';
  return field.type === 'bool' ? false : 0;
}

/** Every broken validation rule of proto3 JSON read as a message of the real protos (see the file comment). */
export class PgvChecker {
  constructor(private readonly protos: RealProtos) {}

  check(typeName: string, json: unknown, root = '$'): Problem[] {
    const out: Problem[] = [];
    this.message(this.protos.type(typeName), json, root, out);
    return out;
  }

  private message(type: protobuf.Type, json: unknown, at: string, out: Problem[]): void {
    const name = type.fullName;
    if (name === '.google.protobuf.Any') return this.any(json, at, out);
    if (name.startsWith('.google.protobuf.') || !isObject(json) || rulesOff(type)) return;
    for (const field of type.fieldsArray) {
      const { key, value } = valueOf(json, field);
      if (value === undefined && field.partOf !== null) continue; // a oneof member (or proto3 optional) unset
      this.field(field, value, childPath(at, key), out);
    }
    for (const oneof of type.oneofsArray) {
      if (!oneofRequired(oneof) || oneof.fieldsArray.some((f) => valueOf(json, f).value !== undefined))
        continue;
      const members = oneof.fieldsArray.map((f) => f.name).join(', ');
      out.push({
        path: at,
        message: `one of ${members} is required (oneof ${oneof.name}, (validate.required))`,
      });
    }
    if (TYPED_STRUCTS.has(name)) this.typedStructValue(json, at, out);
  }

  private field(field: protobuf.Field, value: unknown, at: string, out: Problem[]): void {
    const rules = fieldRules(field);
    if (field instanceof protobuf.MapField) return this.map(field, rules, value, at, out);
    if (field.repeated) return this.repeated(field, rules, value, at, out);
    this.single(field, rules, value, at, out);
  }

  /** One value of the field's type (the field itself, a list item or a map value); undefined when unset. */
  private single(
    field: protobuf.FieldBase,
    rules: Rules,
    value: unknown,
    at: string,
    out: Problem[],
    within = '', // `repeated.items.` or `map.values.`: where `rules` sit in the field's rules
  ): void {
    const report = (vs: Violation[]) =>
      vs.forEach((v) => out.push(problem(at, { ...v, rule: within + v.rule })));
    const t = field.resolvedType;
    if (!(t instanceof protobuf.Type)) {
      report(this.scalar(field, rules, value ?? defaultOf(field)));
      return;
    }
    if (value === undefined) {
      for (const kind of ['message', 'duration', 'any', 'timestamp']) {
        if (sub(rules, kind)['required'] === true)
          report([{ rule: `${kind}.required`, detail: 'a value is required' }]);
      }
      return;
    }
    const wrapped = WRAPPERS[t.fullName];
    if (wrapped !== undefined) report(scalarViolations(wrapped, undefined, rules, value));
    if (t.fullName === '.google.protobuf.Duration') report(durationViolations(sub(rules, 'duration'), value));
    if (t.fullName === '.google.protobuf.Any') report(anyViolations(sub(rules, 'any'), value));
    if (sub(rules, 'message')['skip'] !== true) this.message(t, value, at, out);
  }

  private scalar(field: protobuf.FieldBase, rules: Rules, value: unknown): Violation[] {
    const e = field.resolvedType instanceof protobuf.Enum ? field.resolvedType : undefined;
    return scalarViolations(field.type, e, rules, value);
  }

  private repeated(field: protobuf.Field, rules: Rules, value: unknown, at: string, out: Problem[]): void {
    const items = Array.isArray(value) ? value : [];
    const r = sub(rules, 'repeated');
    if (r['ignore_empty'] === true && items.length === 0) return;
    counts('repeated', r, items.length, 'items', at, out);
    const seen = new Map<string, number>();
    items.forEach((item, i) => {
      if (item === null) return;
      const p = childPath(at, i);
      if (r['unique'] === true) {
        const key = uniqueKey(field, item);
        const first = seen.get(key);
        if (first !== undefined) {
          out.push(problem(p, { rule: 'repeated.unique', detail: `the same item as [${first}]` }));
        } else seen.set(key, i);
      }
      this.single(field, sub(r, 'items'), item, p, out, 'repeated.items.');
    });
  }

  private map(field: protobuf.MapField, rules: Rules, value: unknown, at: string, out: Problem[]): void {
    const entries = isObject(value) ? Object.entries(value) : [];
    const r = sub(rules, 'map');
    if (r['ignore_empty'] === true && entries.length === 0) return;
    counts('map', r, entries.length, 'pairs', at, out);
    for (const [k, v] of entries) {
      const p = childPath(at, k);
      const key = field.keyType === 'string' ? k : field.keyType === 'bool' ? k === 'true' : k;
      for (const violation of scalarViolations(field.keyType, undefined, sub(r, 'keys'), key))
        out.push(problem(p, { rule: `map.keys.${violation.rule}`, detail: `key ${violation.detail}` }));
      if (v !== null) this.single(field, sub(r, 'values'), v, p, out, 'map.values.');
    }
  }

  private any(json: unknown, at: string, out: Problem[]): void {
    if (!isObject(json)) return;
    const type = this.typeOfUrl(json['@type']);
    if (type !== undefined && !type.fullName.startsWith('.google.protobuf.'))
      this.message(type, json, at, out);
  }

  /** A TypedStruct's `value` read as the message its `type_url` names (what Envoy does with it). */
  private typedStructValue(json: JsonObject, at: string, out: Problem[]): void {
    const type = this.typeOfUrl(json['type_url'] ?? json['typeUrl']);
    if (type !== undefined) this.message(type, json['value'] ?? {}, childPath(at, 'value'), out);
  }

  private typeOfUrl(url: unknown): protobuf.Type | undefined {
    if (typeof url !== 'string') return undefined;
    const t = this.protos.lookup(url.slice(url.lastIndexOf('/') + 1));
    return t instanceof protobuf.Type ? t : undefined;
  }
}

/** The rules of a scalar or enum kind on one value (an unwrapped wrapper too; a map key as its JSON form). */
function scalarViolations(kind: string, e: protobuf.Enum | undefined, rules: Rules, v: unknown): Violation[] {
  if (e !== undefined) return enumViolations(e, sub(rules, 'enum'), v);
  const r = sub(rules, kind);
  if (kind === 'string') return stringViolations(r, v);
  if (kind === 'bytes') return bytesViolations(r, v);
  if (kind === 'bool') return boolViolations(r, v);
  return numberViolations(kind, r, v);
}

/** min/max items (repeated.go) or pairs (map.go). */
function counts(kind: string, r: Rules, n: number, unit: string, at: string, out: Problem[]): void {
  const min = r[`min_${unit}`];
  const max = r[`max_${unit}`];
  if (min !== undefined && n < Number(min))
    out.push(
      problem(at, { rule: `${kind}.min_${unit}`, detail: `at least ${Number(min)} ${unit}, not ${n}` }),
    );
  if (max !== undefined && n > Number(max))
    out.push(
      problem(at, { rule: `${kind}.max_${unit}`, detail: `at most ${Number(max)} ${unit}, not ${n}` }),
    );
}

/** What makes two items of a `unique` list the same (by value: enum names and numbers, integer spellings). */
function uniqueKey(field: protobuf.Field, item: unknown): string {
  const e = field.resolvedType;
  if (e instanceof protobuf.Enum && typeof item === 'string') return String(e.values[item] ?? item);
  const n = field.resolvedType === null ? numberOf(field.type, item) : undefined;
  if (n !== undefined && field.type !== 'string' && field.type !== 'bool') return String(n);
  return JSON.stringify(item);
}

const problem = (path: string, v: Violation): Problem => ({
  path,
  message: `${v.detail} ((validate.rules).${v.rule})`,
});
