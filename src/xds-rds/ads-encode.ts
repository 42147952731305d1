import { createHash } from 'node:crypto';
import { ownedCopies } from '../util/bytes.ts';
import { sha256Hex } from '../util/json.ts';
import { LISTENER_TYPE } from '../model/ambient/xds.ts';
import { encodeJson, messageType } from './proto-json.ts';
import { byteLength, lengthDelimited, stringField } from './wire.ts';

/**
 * The waypoint's resources as the ADS streams send them: encoded once per content version, the bytes shared by
 * every stream. The fields match EncodedResource (snapshot.ts), so an RDS route serves as one as it is.
 */
export interface AdsResource {
  readonly name: string;
  /** Hex content hash (16 characters). */
  readonly version: string;
  /** 64 bits of the hash of `<name>@<version>`: what the resource adds to its type's version (a fold, as snapshot.ts). */
  readonly digest: bigint;
  /** `DiscoveryResponse.resources` entry: tag 2 + length + Any{type_url, value}. */
  readonly sotwEntry: Buffer;
  /** `DeltaDiscoveryResponse.resources` entry: tag 2 + length + Resource{version, resource: Any, name}. */
  readonly deltaEntry: Buffer;
}

/** Hex SHA-256 of encoded bytes, 16 characters. */
function bytesHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

export function digestOf(text: string): bigint {
  return BigInt(`0x${sha256Hex(text).slice(0, 16)}`);
}

/** The fold of digests as a version string (16 hex characters), as snapshot.ts writes its version. */
export function foldVersion(fold: bigint): string {
  return fold.toString(16).padStart(16, '0');
}

/**
 * The entries of a resource whose message is `body` (in chunks, concatenated once per entry), versioned `version`.
 * Field numbers: envoy/service/discovery/v3/discovery.proto (Resource: version 1, resource 2, name 3; Any: type_url
 * 1, value 2; DiscoveryResponse.resources and DeltaDiscoveryResponse.resources: 2).
 */
export function adsResource(
  typeUrl: string,
  name: string,
  version: string,
  body: readonly Uint8Array[],
): AdsResource {
  const any = [...stringField(1, typeUrl), ...lengthDelimited(2, body)];
  const resource = [...stringField(1, version), ...lengthDelimited(2, any), ...stringField(3, name)];
  // Held as long as this version is served: one block of their own (util/bytes.ts), each chunk copied once.
  const sotw = lengthDelimited(2, any);
  const delta = lengthDelimited(2, resource);
  const block = Buffer.allocUnsafeSlow(byteLength(sotw) + byteLength(delta));
  let at = 0;
  for (const c of [...sotw, ...delta]) {
    block.set(c, at);
    at += c.length;
  }
  const sotwEntry = block.subarray(0, byteLength(sotw));
  const deltaEntry = block.subarray(sotwEntry.length);
  return { name, version, digest: digestOf(`${name}@${version}`), sotwEntry, deltaEntry };
}

/** Encodes one resource from its proto3 JSON (throws an Error naming the JSON path of a problem). */
export function encodeAdsResource(typeUrl: string, name: string, json: unknown, at: string): AdsResource {
  const body = encodeJson(typeUrl, json, at);
  return adsResource(typeUrl, name, bytesHash(body), [body]);
}

/** One filter chain, encoded once: its `Listener.filter_chains` entry and its digest. */
export interface EncodedChain {
  readonly name: string;
  readonly text: string;
  readonly entry: Uint8Array;
  readonly digest: bigint;
}

let filterChainsField: number | undefined;

/** `Listener.filter_chains`' field number, by reflection (3 in envoy/config/listener/v3/listener.proto). */
function chainsField(): number {
  return (filterChainsField ??= messageType(LISTENER_TYPE).fields['filterChains']!.id);
}

export function encodeChain(json: Readonly<Record<string, unknown>>, text: string, at: string): EncodedChain {
  const name = json['name'];
  if (typeof name !== 'string' || name === '') throw new Error(`${at}.name: a filter chain needs a name`);
  const body = encodeJson('envoy.config.listener.v3.FilterChain', json, at);
  const [entry] = ownedCopies(Buffer.concat(lengthDelimited(chainsField(), [body])));
  return { name, text, entry: entry!, digest: digestOf(`${name}@${bytesHash(body)}`) };
}

/** The Listener template (everything but `filter_chains`), encoded once. */
export interface EncodedTemplate {
  readonly name: string;
  readonly text: string;
  readonly body: Uint8Array;
  readonly digest: bigint;
}

export function encodeTemplate(
  json: Readonly<Record<string, unknown>>,
  text: string,
  at: string,
): EncodedTemplate {
  const name = json['name'];
  if (typeof name !== 'string' || name === '') throw new Error(`${at}.name: the listener needs a name`);
  if ('filter_chains' in json || 'filterChains' in json) {
    throw new Error(`${at}.filter_chains: the listener template carries no filter chains (services do)`);
  }
  const body = encodeJson(LISTENER_TYPE, json, at);
  return { name, text, body, digest: digestOf(`listener@${bytesHash(body)}`) };
}

/**
 * The Listener: the template's fields, then each chain's pre-encoded `filter_chains` entry (protobuf allows a
 * repeated field's entries anywhere in a message, as responses.ts relies on), so a change to one service copies the
 * other chains' bytes and encodes nothing else. Its version folds the template's and the chains' digests.
 */
export function assembleListener(template: EncodedTemplate, chains: readonly EncodedChain[]): AdsResource {
  let fold = template.digest;
  const body: Uint8Array[] = [template.body];
  for (const c of chains) {
    fold ^= c.digest;
    body.push(c.entry);
  }
  return adsResource(LISTENER_TYPE, template.name, foldVersion(fold), body);
}
