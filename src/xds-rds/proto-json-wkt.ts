/**
 * The well-known types whose proto3 JSON form is not the object of their fields
 * (https://protobuf.dev/programming-guides/json/, "JSON mapping" table): Any, Struct/Value/ListValue, Duration,
 * Timestamp, FieldMask and the wrappers. Object forms follow protobufjs' bundled definitions (`protobuf.common`).
 */
export type WellKnown =
  | { readonly kind: 'any' | 'struct' | 'value' | 'list' | 'duration' | 'timestamp' | 'fieldmask' }
  | { readonly kind: 'wrapper'; readonly scalar: string };

const WRAPPERS: Record<string, string> = {
  DoubleValue: 'double',
  FloatValue: 'float',
  Int64Value: 'int64',
  UInt64Value: 'uint64',
  Int32Value: 'int32',
  UInt32Value: 'uint32',
  BoolValue: 'bool',
  StringValue: 'string',
  BytesValue: 'bytes',
};

export const WELL_KNOWN: Readonly<Record<string, WellKnown>> = {
  '.google.protobuf.Any': { kind: 'any' },
  '.google.protobuf.Struct': { kind: 'struct' },
  '.google.protobuf.Value': { kind: 'value' },
  '.google.protobuf.ListValue': { kind: 'list' },
  '.google.protobuf.Duration': { kind: 'duration' },
  '.google.protobuf.Timestamp': { kind: 'timestamp' },
  '.google.protobuf.FieldMask': { kind: 'fieldmask' },
  ...Object.fromEntries(
    Object.entries(WRAPPERS).map(([n, scalar]) => [`.google.protobuf.${n}`, { kind: 'wrapper', scalar }]),
  ),
};

type AnyFromJson = (json: unknown, at: string) => unknown;
type AnyToJson = (any: { type_url?: string; value?: string }) => unknown;
type Scalar = (type: string, value: unknown, at: string) => unknown;

/** Seconds with up to 9 fractional digits, then `s` (Duration's JSON form, e.g. "10s", "0.5s", "-1.25s"). */
const DURATION = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;
const MAX_DURATION_SECONDS = 315_576_000_000n;

function duration(json: unknown, at: string): { seconds: string; nanos: number } {
  const m = typeof json === 'string' ? DURATION.exec(json) : null;
  if (!m)
    throw new Error(`${at}: ${JSON.stringify(json)?.slice(0, 60)} is not a Duration (e.g. "10s", "0.5s")`);
  const sign = m[1] ? -1 : 1;
  const seconds = BigInt(m[2]!);
  if (seconds > MAX_DURATION_SECONDS) throw new Error(`${at}: Duration "${json as string}" is out of range`);
  const nanos = Number((m[3] ?? '').padEnd(9, '0'));
  return { seconds: String(BigInt(sign) * seconds), nanos: sign * nanos };
}

function timestamp(json: unknown, at: string): { seconds: string; nanos: number } {
  const m =
    typeof json === 'string' ? /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(json) : null;
  const ms = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  if (!m || Number.isNaN(ms))
    throw new Error(`${at}: ${JSON.stringify(json)?.slice(0, 60)} is not an RFC 3339 Timestamp`);
  return { seconds: String(Math.floor(ms / 1000)), nanos: Number((m[2] ?? '').padEnd(9, '0')) };
}

function value(json: unknown, at: string): unknown {
  if (json === null) return { nullValue: 0 };
  if (typeof json === 'number') return { numberValue: json };
  if (typeof json === 'string') return { stringValue: json };
  if (typeof json === 'boolean') return { boolValue: json };
  if (Array.isArray(json)) return { listValue: list(json, at) };
  if (typeof json === 'object') return { structValue: struct(json, at) };
  throw new Error(`${at}: ${typeof json} is not a JSON value`);
}

function struct(json: unknown, at: string): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new Error(`${at}: a Struct must be an object`);
  }
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(json)) fields[k] = value(v, `${at}.${k}`);
  return { fields };
}

function list(json: unknown, at: string): unknown {
  if (!Array.isArray(json)) throw new Error(`${at}: a ListValue must be a list`);
  return { values: json.map((v, i) => value(v, `${at}[${i}]`)) };
}

/** The object form of `json` read as the well-known type `wk`. */
export function wellKnownFromJson(
  wk: WellKnown,
  json: unknown,
  at: string,
  anyFromJson: AnyFromJson,
  scalar: Scalar,
): unknown {
  switch (wk.kind) {
    case 'any':
      return anyFromJson(json, at);
    case 'struct':
      return struct(json, at);
    case 'value':
      return value(json, at);
    case 'list':
      return list(json, at);
    case 'duration':
      return duration(json, at);
    case 'timestamp':
      return timestamp(json, at);
    case 'fieldmask':
      if (typeof json !== 'string') throw new Error(`${at}: a FieldMask must be a string`);
      return { paths: json === '' ? [] : json.split(',') };
    case 'wrapper':
      return { value: scalar(wk.scalar, json, at) };
  }
}

function valueToJson(v: Record<string, unknown>): unknown {
  if ('structValue' in v) return structToJson(v['structValue']);
  if ('listValue' in v) return listToJson(v['listValue']);
  if ('numberValue' in v) return v['numberValue'];
  if ('stringValue' in v) return v['stringValue'];
  if ('boolValue' in v) return v['boolValue'];
  return null;
}

function structToJson(s: unknown): unknown {
  const fields = (s as { fields?: Record<string, Record<string, unknown>> }).fields ?? {};
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, valueToJson(v)]));
}

function listToJson(l: unknown): unknown {
  return ((l as { values?: Record<string, unknown>[] }).values ?? []).map(valueToJson);
}

/** Seconds and nanos as Duration's canonical JSON (0, 3, 6 or 9 fractional digits). */
function formatSeconds(seconds: string, nanos: number): string {
  const negative = seconds.startsWith('-') || nanos < 0;
  const whole = seconds.replace(/^-/, '');
  let frac = String(Math.abs(nanos)).padStart(9, '0');
  while (frac.length > 0 && frac.endsWith('000')) frac = frac.slice(0, -3);
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** The canonical proto3 JSON of the object form (protobufjs `toObject`, longs as strings) of a well-known type. */
export function wellKnownToJson(wk: WellKnown, obj: unknown, anyToJson: AnyToJson): unknown {
  const o = obj as Record<string, unknown>;
  switch (wk.kind) {
    case 'any':
      return anyToJson(o);
    case 'struct':
      return structToJson(o);
    case 'value':
      return valueToJson(o);
    case 'list':
      return listToJson(o);
    case 'duration':
      return `${formatSeconds(String((o['seconds'] as string | number | undefined) ?? '0'), Number(o['nanos'] ?? 0))}s`;
    case 'timestamp': {
      const ms = Number(o['seconds'] ?? 0) * 1000;
      const base = new Date(ms).toISOString().slice(0, 19);
      const frac = formatSeconds('0', Number(o['nanos'] ?? 0)).slice(1);
      return `${base}${frac}Z`;
    }
    case 'fieldmask':
      return ((o['paths'] as string[] | undefined) ?? []).join(',');
    case 'wrapper': {
      const v = o['value'];
      if (v !== undefined) return v;
      return wk.scalar === 'bool' ? false : wk.scalar === 'string' || wk.scalar === 'bytes' ? '' : 0;
    }
  }
}
