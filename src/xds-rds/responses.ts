import { ROUTE_CONFIGURATION_TYPE } from '../model/constants.ts';
import { loadRdsProtos } from './protos.ts';
import type { EncodedResource } from './snapshot.ts';

/**
 * Response encoding: the small per-stream fields are encoded here and the pre-encoded resource entries are
 * appended as they are (protobuf allows repeated fields anywhere in a message), so a push costs one copy of the
 * shared bytes per stream and no re-encoding.
 */
export function encodeSotwResponse(
  versionInfo: string,
  nonce: string,
  resources: readonly EncodedResource[],
): Buffer {
  const p = loadRdsProtos();
  const head = p.DiscoveryResponse.encode(
    p.DiscoveryResponse.fromObject({ versionInfo, typeUrl: ROUTE_CONFIGURATION_TYPE, nonce }),
  ).finish();
  return Buffer.concat([head, ...resources.map((r) => r.sotwEntry)]);
}

export function encodeDeltaResponse(
  systemVersionInfo: string,
  nonce: string,
  resources: readonly EncodedResource[],
  removedResources: readonly string[],
): Buffer {
  const p = loadRdsProtos();
  const head = p.DeltaDiscoveryResponse.encode(
    p.DeltaDiscoveryResponse.fromObject({
      systemVersionInfo,
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      nonce,
      removedResources: [...removedResources],
    }),
  ).finish();
  return Buffer.concat([head, ...resources.map((r) => r.deltaEntry)]);
}
