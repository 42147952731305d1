import { ROUTE_CONFIGURATION_TYPE } from '../model/constants.ts';
import type { EncodedResource } from './snapshot.ts';
import { stringField as stringFieldChunks } from './wire.ts';

/**
 * Response encoding: the small per-stream fields are hand-encoded here (string fields of DiscoveryResponse /
 * DeltaDiscoveryResponse) and the pre-encoded resource entries are appended as they are (protobuf allows repeated
 * fields anywhere in a message), so a push costs one copy of the shared bytes per stream and no re-encoding.
 * Field numbers: wire-formats.md 4.1; the field encoding is wire.ts's.
 */

/** A length-delimited string field as one buffer; empty strings are left out (proto3 default). */
function stringField(field: number, value: string): Buffer {
  return Buffer.concat(stringFieldChunks(field, value));
}

/** Field 4 (type_url) of both responses, per type URL (RDS, and the waypoint's ADS types). */
const typeUrlFields = new Map<string, Buffer>();

function typeUrlField(typeUrl: string): Buffer {
  let f = typeUrlFields.get(typeUrl);
  if (!f) typeUrlFields.set(typeUrl, (f = stringField(4, typeUrl)));
  return f;
}

let lastVersion = '';
let lastVersionField: Buffer = Buffer.alloc(0);

/** Field 1 (version_info / system_version_info), memoised: one push encodes it once for all streams. */
function versionField(version: string): Buffer {
  if (version !== lastVersion) {
    lastVersion = version;
    lastVersionField = stringField(1, version);
  }
  return lastVersionField;
}

/** DiscoveryResponse{version_info=1, resources=2, type_url=4, nonce=5}. */
export function encodeSotwResponse(
  versionInfo: string,
  nonce: string,
  resources: readonly Pick<EncodedResource, 'sotwEntry'>[],
  typeUrl: string = ROUTE_CONFIGURATION_TYPE,
): Buffer {
  return Buffer.concat([
    versionField(versionInfo),
    typeUrlField(typeUrl),
    stringField(5, nonce),
    ...resources.map((r) => r.sotwEntry),
  ]);
}

/** DeltaDiscoveryResponse{system_version_info=1, resources=2, type_url=4, nonce=5, removed_resources=6}. */
export function encodeDeltaResponse(
  systemVersionInfo: string,
  nonce: string,
  resources: readonly Pick<EncodedResource, 'deltaEntry'>[],
  removedResources: readonly string[],
  typeUrl: string = ROUTE_CONFIGURATION_TYPE,
): Buffer {
  return Buffer.concat([
    versionField(systemVersionInfo),
    typeUrlField(typeUrl),
    stringField(5, nonce),
    ...removedResources.map((n) => stringField(6, n)),
    ...resources.map((r) => r.deltaEntry),
  ]);
}
