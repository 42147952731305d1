import { boundHostsOf } from '../../model/bound-hosts.ts';
import type { ConfigObject } from '../../model/objects.ts';
import { fail, issue, ok, type ConfigIssue, type ObjectRef, type Result } from '../../model/result.ts';
import { decodeRangeToJson, decodeToJson } from './json-decode.ts';
import { BODY_TYPE_PREFIX, MCP_RESOURCE_TYPE_URL, type McpProtos } from './protos.ts';
import { BodyRef, decodeResourceMessage, type DecodedResourceMessage } from './resource-decode.ts';
import { MCP_KINDS, type IstioKind, type McpTypeUrl } from './type-urls.ts';

/**
 * The parser: one `google.protobuf.Any` of a DiscoveryResponse → an Istio config object. Pure: no I/O, no
 * logging. The Kubernetes-JSON-shaped object handed to `parse` mirrors what `kubectl get -o json` shows
 * (apiVersion of the subscribed type URL, metadata from the MCP Metadata, spec = proto3 JSON of the body).
 */

export const REVISION_LABEL = 'istio.io/rev';

/** A protobuf Any as protobufjs decodes it (field names of the built-in any.proto). */
export interface AnyMessage {
  readonly type_url?: string;
  readonly value?: Uint8Array;
}

export type ParseFn = (raw: unknown) => Result<ConfigObject> | undefined;

/** What became of one resource of a response. */
export type DecodedResource =
  /** Parsed and valid. */
  | { readonly status: 'ok'; readonly key: string; readonly version: string; readonly object: ConfigObject }
  /** Decoded but rejected by validation: user config error, reported against the object. */
  | {
      readonly status: 'invalid';
      readonly key: string;
      readonly version: string;
      readonly ref: ObjectRef;
      readonly issues: readonly ConfigIssue[];
      /** The hosts the invalid object binds (model/bound-hosts.ts). */
      readonly hosts: readonly string[];
    }
  /** Deliberately ignored (another revision, a name that is not `<ns>/<name>`). */
  | { readonly status: 'skipped'; readonly key?: string; readonly reason: string }
  /** Not decodable. `key` is set when at least the metadata could be read. */
  | { readonly status: 'undecodable'; readonly key?: string; readonly reason: string };

/** Decodes only the MCP envelope; returns the name key and version without touching the body. */
export interface Envelope {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly version: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly createTime: string;
  readonly body: AnyMessage | undefined;
}

interface TimestampMessage {
  readonly seconds?: number | { toNumber(): number };
  readonly nanos?: number;
}

const GO_ZERO_TIME_SECONDS = -62_135_596_800; // 0001-01-01T00:00:00Z
/** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the years RFC 3339 can write. */
const MIN_SECONDS = -62_167_219_200;
const MAX_SECONDS = 253_402_300_799;

/** RFC 3339 with second precision, as the Kubernetes API server writes creationTimestamp. */
export function formatTimestamp(ts: TimestampMessage | undefined): string {
  if (!ts || ts.seconds === undefined) return '';
  const seconds = typeof ts.seconds === 'number' ? ts.seconds : ts.seconds.toNumber();
  // Go's zero time.Time (synthetic ServiceEntries have no creation time): unknown, as Kubernetes shows null.
  if (seconds === GO_ZERO_TIME_SECONDS) return '';
  if (!Number.isInteger(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS) return '';
  const days = Math.floor(seconds / 86_400);
  const rem = seconds - days * 86_400;
  const hh = Math.floor(rem / 3600);
  const mm = Math.floor((rem % 3600) / 60);
  const ss = rem % 60;
  return `${civilDate(days)}T${pad(hh, 2)}:${pad(mm, 2)}:${pad(ss, 2)}Z`;
}

/** `YYYY-MM-DD` of a day number since 1970-01-01 (H. Hinnant, "chrono-compatible low-level date algorithms"). */
function civilDate(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** The object named in envelope issues: the MCP Resource, by its name once that could be read. */
function resourceRef(name: string): ObjectRef {
  return { kind: 'Resource', namespace: '', name };
}

/**
 * Path of the issue of a resource that decodes but whose name is not `<namespace>/<name>` (adsc skips those
 * with a warning); issues at any other path mean the resource could not be decoded.
 */
export const RESOURCE_NAME_PATH = 'metadata.name';

/**
 * Decodes the envelope of one resource. Fails with one issue: at RESOURCE_NAME_PATH for a name that is not
 * `<namespace>/<name>`, else (wrong type, undecodable bytes) for the whole resource. `_protos` is unused since
 * the Resource is read by resource-decode.ts (kept: callers pass it).
 */
export function decodeEnvelope(_protos: McpProtos, any: AnyMessage): Result<Envelope> {
  if (any.type_url !== MCP_RESOURCE_TYPE_URL) {
    const message = `unexpected resource type ${JSON.stringify(any.type_url ?? '')}`;
    return fail([issue(resourceRef(''), '', message)]);
  }
  let res: DecodedResourceMessage;
  try {
    // Equivalent to protos.Resource.decode, without message instances or copies of the body.
    res = decodeResourceMessage(any.value ?? new Uint8Array());
  } catch (err) {
    const message = `cannot decode istio.mcp.v1alpha1.Resource: ${(err as Error).message}`;
    return fail([issue(resourceRef(''), '', message)]);
  }
  const full = res.name;
  const slash = full.indexOf('/');
  if (slash <= 0 || slash === full.length - 1 || full.indexOf('/', slash + 1) !== -1) {
    const message = `metadata.name ${JSON.stringify(full)} is not <namespace>/<name>`;
    return fail([issue(resourceRef(full), RESOURCE_NAME_PATH, message)]);
  }
  return ok({
    key: full,
    namespace: full.slice(0, slash),
    name: full.slice(slash + 1),
    version: res.version,
    labels: res.labels,
    annotations: res.annotations,
    createTime: res.createSeconds === undefined ? '' : formatTimestamp({ seconds: res.createSeconds }),
    body: res.body,
  });
}

/** The body type URL of each kind. */
const BODY_TYPE_URLS = Object.fromEntries(MCP_KINDS.map((k) => [k, BODY_TYPE_PREFIX + k])) as Readonly<
  Record<IstioKind, string>
>;

/** Decodes the body of an envelope and parses the whole object. */
export function decodeBody(
  protos: McpProtos,
  type: McpTypeUrl,
  env: Envelope,
  parse: ParseFn,
): DecodedResource {
  const expected = BODY_TYPE_URLS[type.kind];
  const bodyType = env.body?.type_url ?? '';
  if (bodyType !== expected) {
    return {
      status: 'undecodable',
      key: env.key,
      reason: `body type ${JSON.stringify(bodyType)}, want ${expected}`,
    };
  }
  const messageType = protos.bodies.get(expected);
  if (!messageType) return { status: 'undecodable', key: env.key, reason: `no proto for ${expected}` };
  let spec: Record<string, unknown>;
  try {
    const body = env.body;
    spec =
      body instanceof BodyRef
        ? decodeRangeToJson(messageType, body.buf, body.start, body.end)
        : decodeToJson(messageType, body?.value ?? new Uint8Array());
  } catch (err) {
    return {
      status: 'undecodable',
      key: env.key,
      reason: `cannot decode ${expected}: ${(err as Error).message}`,
    };
  }
  const raw = {
    apiVersion: type.apiVersion,
    kind: type.kind,
    metadata: {
      name: env.name,
      namespace: env.namespace,
      labels: env.labels,
      annotations: env.annotations,
      creationTimestamp: env.createTime,
      resourceVersion: env.version,
    },
    spec,
  };
  const parsed = parse(raw);
  if (parsed === undefined) {
    return { status: 'undecodable', key: env.key, reason: `kind ${type.kind} not recognised by the parser` };
  }
  if (parsed.ok) return { status: 'ok', key: env.key, version: env.version, object: parsed.value };
  return {
    status: 'invalid',
    key: env.key,
    version: env.version,
    ref: { kind: type.kind, namespace: env.namespace, name: env.name },
    issues: parsed.issues,
    hosts: boundHostsOf(raw),
  };
}

/** True when the object belongs to this controller's revision (istio pkg/config/model.go ObjectInRevision). */
export function inRevision(labels: Readonly<Record<string, string>>, revision: string): boolean {
  const rev = labels[REVISION_LABEL];
  return rev === undefined || rev === revision;
}
