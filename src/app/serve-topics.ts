/**
 * The topics of `aeraki serve` (values in model/topics.ts, kit/topic.ts the mechanism): what several parts react
 * to, published where it happens and followed where it matters.
 *
 * | topic        | published by (serve.ts, serve-writers.ts)           | followed by                                  |
 * |--------------|-----------------------------------------------------|----------------------------------------------|
 * | `config`     | the store's events                                  | status; the reconciler and the routes        |
 * | `desired`    | the reconciler's generation pass                    | status (issues, conflicts); proxy status     |
 * |              |                                                     | reads its objects                            |
 * | `routes`     | the RouteSource after a rebuild                     | status (MetaRouters' Programmed)             |
 * | `acks`       | the RDS ack tracker when where proxies stand moves  | status (MetaRouters' Programmed)             |
 * | `rejections` | proxy status, on each change of the list            | status (listener rejections)                 |
 * | `kinds`      | the config sources (kind installed, deleted, ...)   | the reconciler and the routes                |
 *
 * The status controller follows its topics in one place (`followTopics`, called where it is built) and plans from
 * their latest values (`statusInputsOf`).
 */
import type { ConfigStore } from '../controller/store.ts';
import { Topic } from '../kit/topic.ts';
import type { ServeTopics } from '../model/topics.ts';
import type { ConfigEvent } from '../model/view.ts';
import type { StatusInputs } from '../status/controller.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/logger.ts';

export type Topics = { readonly [K in keyof ServeTopics]: Topic<ServeTopics[K]> };

const NAMES: readonly (keyof ServeTopics)[] = ['config', 'desired', 'routes', 'acks', 'rejections', 'kinds'];

export function createTopics(clock: Clock, logger: Logger): Topics {
  const topic = <K extends keyof ServeTopics>(name: K) => new Topic<ServeTopics[K]>({ name, clock, logger });
  return Object.fromEntries(NAMES.map((name) => [name, topic(name)])) as unknown as Topics;
}

/** What the status controller follows: every input of its plan but the API server's own objects. */
export const STATUS_TOPICS = [
  'config',
  'desired',
  'routes',
  'acks',
  'rejections',
] as const satisfies readonly (keyof ServeTopics)[];

/** Asks `status` for a run on every publish of its topics; returns the unsubscribe function. */
export function followTopics(topics: Topics, status: { trigger(): void }): () => void {
  const offs = STATUS_TOPICS.map((name) => topics[name].subscribe(() => status.trigger()));
  return () => {
    for (const off of offs) off();
  };
}

/** Store events held for the status controller between runs; beyond this many it plans every target once. */
const MAX_HELD_CHANGES = 100_000;

/**
 * What the status controller plans from: the store and its rejections, the topics' latest values, and the store's
 * events since the last read (`changes`, from the `config` topic, so that it plans again only what they touch).
 */
export function statusInputsOf(store: ConfigStore, topics: Topics): () => StatusInputs {
  let changes: ConfigEvent[] | undefined = [];
  topics.config.subscribe((e) => {
    if (changes && changes.length < MAX_HELD_CHANGES) changes.push(e);
    else changes = undefined;
  });
  return () => {
    const taken = changes;
    changes = [];
    const desired = topics.desired.latest()?.value;
    const rejections = topics.rejections.latest()?.value;
    const routeAcks = topics.acks.latest()?.value;
    return {
      view: store,
      rejected: store.rejected(),
      issues: desired?.issues ?? [],
      ...(desired?.conflicts ? { conflicts: desired.conflicts } : {}),
      ...(rejections ? { listenerRejections: rejections } : {}),
      ...(routeAcks ? { routeAcks } : {}),
      ...(taken ? { changes: taken } : {}),
    };
  };
}
