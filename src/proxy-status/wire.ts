import protobuf from 'protobufjs';
import { LISTENER_TYPE_URL } from './protos.ts';

/**
 * A reader of `envoy.service.status.v3.ClientConfig` for the fields attribution needs, skipping the rest:
 * node.id (Node 1), node.metadata (Node 3, a Struct) NAMESPACE, generic_xds_configs (3) type_url (1),
 * config_status (6), error_state (8) details (UpdateFailureState 3), and the older xds_config (2) status (1)
 * of the listener_config member (2). Same result as decoding the whole message by reflection, several times
 * faster (a syncz answer holds one per proxy). Field numbers: envoy/service/status/v3/csds.proto,
 * envoy/config/core/v3/base.proto, envoy/admin/v3/config_dump_shared.proto, google/protobuf/struct.proto.
 */
export interface ClientConfigFields {
  id: string;
  namespace: string;
  /** ConfigStatus number of LDS (generic_xds_configs, else the older xds_config); undefined when absent. */
  ldsStatus: number | undefined;
  ldsError: string | undefined;
}

const LEN = 2;

function nodeFields(r: protobuf.Reader, end: number, out: ClientConfigFields): void {
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === LEN) out.id = r.string();
    else if (tag >>> 3 === 3 && (tag & 7) === LEN) structNamespace(r, r.uint32() + r.pos, out);
    else r.skipType(tag & 7);
  }
}

/** Struct.fields (1) entries: key (1), Value (2) string_value (3). */
function structNamespace(r: protobuf.Reader, end: number, out: ClientConfigFields): void {
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 !== 1 || (tag & 7) !== LEN) {
      r.skipType(tag & 7);
      continue;
    }
    const entryEnd = r.uint32() + r.pos;
    let key = '';
    let value: string | undefined;
    while (r.pos < entryEnd) {
      const t = r.uint32();
      if (t >>> 3 === 1 && (t & 7) === LEN) key = r.string();
      else if (t >>> 3 === 2 && (t & 7) === LEN) {
        const vEnd = r.uint32() + r.pos;
        while (r.pos < vEnd) {
          const vt = r.uint32();
          if (vt >>> 3 === 3 && (vt & 7) === LEN) value = r.string();
          else r.skipType(vt & 7);
        }
      } else r.skipType(t & 7);
    }
    if (key === 'NAMESPACE' && value) out.namespace = value;
  }
}

function genericConfig(r: protobuf.Reader, end: number, out: ClientConfigFields): void {
  let typeUrl = '';
  let status = 0;
  let details: string | undefined;
  while (r.pos < end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    if (field === 1 && (tag & 7) === LEN) typeUrl = r.string();
    else if (field === 6 && (tag & 7) === 0) status = r.int32();
    else if (field === 8 && (tag & 7) === LEN) {
      const eEnd = r.uint32() + r.pos;
      while (r.pos < eEnd) {
        const et = r.uint32();
        if (et >>> 3 === 3 && (et & 7) === LEN) details = r.string();
        else r.skipType(et & 7);
      }
    } else r.skipType(tag & 7);
  }
  if (typeUrl === LISTENER_TYPE_URL && out.ldsStatus === undefined) {
    out.ldsStatus = status;
    out.ldsError = details || undefined;
  }
}

/** PerXdsConfig: status (1); listener_config (2) present = LDS. */
function perXdsConfig(r: protobuf.Reader, end: number): number | undefined {
  let status = 0;
  let lds = false;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === 0) status = r.int32();
    else {
      if (tag >>> 3 === 2) lds = true;
      r.skipType(tag & 7);
    }
  }
  return lds ? status : undefined;
}

/** Reads one ClientConfig; throws on malformed bytes. */
export function readClientConfig(bytes: Uint8Array): ClientConfigFields {
  const r = protobuf.Reader.create(bytes);
  const out: ClientConfigFields = { id: '', namespace: '', ldsStatus: undefined, ldsError: undefined };
  let olderLds: number | undefined;
  while (r.pos < r.len) {
    const tag = r.uint32();
    const field = tag >>> 3;
    if ((tag & 7) !== LEN) {
      r.skipType(tag & 7);
      continue;
    }
    const end = r.uint32() + r.pos;
    if (end > r.len) throw new RangeError('index out of range');
    if (field === 1) nodeFields(r, end, out);
    else if (field === 3) genericConfig(r, end, out);
    else if (field === 2) {
      const status = perXdsConfig(r, end);
      olderLds ??= status;
    } else r.pos = end;
    if (r.pos !== end) throw new RangeError('malformed ClientConfig');
  }
  if (out.ldsStatus === undefined) out.ldsStatus = olderLds;
  return out;
}
