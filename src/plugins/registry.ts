/** The one list of generators (DESIGN.md habit 1: no global registries filled by import side effects). */
import type { Generator } from '../model/generator.ts';
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
