/**
 * The values of the few topics `aeraki serve` publishes (kit/topic.ts; app/serve-topics.ts creates and wires them):
 * what several parts react to, each the latest value, published synchronously. Six topics, each with the parts
 * that publish it and the parts that follow it listed in app/serve-topics.ts.
 */
import type { UnavailableKind } from './config-source.ts';
import type { ListenerRejection } from './listener-rejections.ts';
import type { OutputObject } from './objects.ts';
import type { ConfigIssue } from './result.ts';
import type { RouteAcks } from './route-acks.ts';
import type { ConfigEvent } from './view.ts';

/** One generation pass of the desired set: its issues and conflicts, and its objects. */
export interface GenerationPass {
  /** Every problem the pass found (status conditions and Events, aeraki_config_issues). */
  readonly issues: readonly ConfigIssue[];
  /** The pass's conflict warnings, also among `issues` (status reports them on both sides). */
  readonly conflicts?: readonly ConfigIssue[];
  /** The desired EnvoyFilters and gateway VirtualServices; may be materialised on first read (read it lazily). */
  readonly objects: readonly OutputObject[];
}

/** The RDS routes were rebuilt: the route configurations the rebuild touched (changed or not). */
export interface RoutesRebuilt {
  readonly routes: readonly string[];
}

/** A kind was installed, deleted, forbidden or granted (or a source's sync state moved): where the sources stand. */
export interface SourceKinds {
  /** Every config source synced (ConfigSource.synced of each). */
  readonly synced: boolean;
  /** The kinds not read now: not installed (read as empty) or forbidden. */
  readonly unavailable: readonly UnavailableKind[];
}

/** Each topic's value type, by topic name. */
export interface ServeTopics {
  /** The store changed (ConfigStore's events, one per change). */
  readonly config: ConfigEvent;
  /** The reconciler generated the desired set. */
  readonly desired: GenerationPass;
  /** The RouteSource rebuilt routes. */
  readonly routes: RoutesRebuilt;
  /** Where the proxies stand on the routes served changed; the value is the live view of their answers. */
  readonly acks: RouteAcks;
  /** The listener rejections istiod's proxies report (proxy-status), replaced as a whole. */
  readonly rejections: readonly ListenerRejection[];
  /** A source's kinds changed. */
  readonly kinds: SourceKinds;
}
