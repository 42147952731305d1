/**
 * The one list of plugins (DESIGN.md habit 1: no global registries filled by import side effects): each a generator
 * with the kinds its plugin reads. Adding a protocol is one folder, one line here and its CRD in manifests/.
 */
import type { Generator } from '../model/generator.ts';
import { kindsOf, type KindSpec } from '../model/kinds.ts';
import { protocolNames, type Protocol, type ProtocolNames } from '../model/protocol.ts';
import { createDubboGenerator } from './dubbo/index.ts';
import { createKafkaGenerator } from './kafka/index.ts';
import { createMetaProtocolGenerator } from './metaprotocol/index.ts';
import { createRedisGenerator } from './redis/index.ts';
import { createThriftGenerator } from './thrift/index.ts';
import { createZooKeeperGenerator } from './zookeeper/index.ts';

/** Every generator, one per protocol family; no two claim the same protocol. */
export function createGenerators(): readonly Generator[] {
  return Object.freeze([
    createMetaProtocolGenerator(),
    createDubboGenerator(),
    createThriftGenerator(),
    createKafkaGenerator(),
    createZooKeeperGenerator(),
    createRedisGenerator(),
  ]);
}

/** The kinds the plugins read, in plugin order (what the store, parsers, Kubernetes sources and webhook learn). */
export function createPluginKinds(): readonly KindSpec[] {
  return kindsOf(createGenerators());
}

/**
 * Names Aeraki detects in port names although no plugin here handles them (aeraki-mesh/aeraki
 * internal/model/protocol/instance.go, protocolMap, at 56e4de0f28d7bb0feab9d899eec08a28a62ad27a): a port so named
 * is reported as recognised but not handled rather than as an unknown `tcp-<segment>`.
 */
const DETECTED_WITHOUT_PLUGIN: readonly Protocol[] = ['mongo', 'mysql'];

/**
 * The names port names select protocols by: each of `generators`' declared protocols (Generator.protocols), in
 * plugin order, then those Aeraki detects with no plugin here. model/, the generation, analyze and the debug page
 * (`/debug/protocols`) detect with these.
 */
export function createProtocolNames(generators: readonly Generator[] = createGenerators()): ProtocolNames {
  return protocolNames([...generators.flatMap((g) => g.protocols), ...DETECTED_WITHOUT_PLUGIN]);
}
