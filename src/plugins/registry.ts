/**
 * The one list of plugins (DESIGN.md habit 1: no global registries filled by import side effects): each a generator
 * with the kinds its plugin reads. Adding a protocol is one folder, one line here and its CRD in manifests/.
 */
import type { Generator } from '../model/generator.ts';
import { kindsOf, type KindSpec } from '../model/kinds.ts';
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
