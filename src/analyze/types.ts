/**
 * `aeraki analyze`: the contract every analyzer meets. An analyzer is a pure function of an AnalysisInput (the
 * objects read, offline from files or live from a cluster, the EnvoyFilters this controller would write for them,
 * and, live only, facts about the cluster) to messages, each with a stable code (`AER0004`) that a user can look
 * up in the generated reference (docs/analyze.md) and silence in CI. Analyzers never fetch anything themselves:
 * what they read is in the input, so each runs the same offline and live, in tests, on any input.
 */
import type { PolicyTargetRef } from '../model/ambient/envoyfilter.ts';
import type { AmbientView } from '../model/ambient/view.ts';
import type { ConfigIssue, ObjectRef } from '../model/result.ts';
import type { ParsedObjects } from '../model/parse/objects.ts';
import type { ProtocolFacts } from '../model/protocol-facts.ts';
import type { Protocol } from '../model/protocol.ts';

/** Worst first: `--fail-on warning` fails on errors and warnings. */
export type AnalysisSeverity = 'error' | 'warning' | 'info';

/** One entry of the code reference: stable once released (a code is never reused for another meaning). */
export interface AnalysisCode {
  /** `AER` and four digits. */
  readonly code: string;
  /** PascalCase, like istioctl's (`PortNameNearMiss`). */
  readonly name: string;
  readonly severity: AnalysisSeverity;
  /** One line: why this matters. */
  readonly why: string;
  /** One line: what to do about it. */
  readonly fix: string;
  /** Whether it needs a cluster (`--kubeconfig`); offline analysis cannot find it. */
  readonly live: boolean;
  /**
   * An input that produces the message (YAML documents, as a user would write them), for the reference and the
   * tests; live codes describe the cluster facts in `example` prose after the YAML, as a comment.
   */
  readonly example: string;
}

/** One finding. */
export interface AnalysisMessage {
  readonly code: AnalysisCode;
  /** The object the message is about (`MetaRouter shop/orders`); absent for a finding about the cluster. */
  readonly ref?: ObjectRef;
  /** Dotted field path inside the object (`spec.ports[1].name`), as ConfigIssue paths are; may be empty. */
  readonly path?: string;
  readonly message: string;
  /** The file the object was read from (offline), filled in by run.ts from AnalysisInput.locate. */
  readonly file?: string;
  /** 1-based line of the field (`path`) in `file`, or of the object when the path is empty; when known. */
  readonly line?: number;
  /** 1-based column of the same place, when known. */
  readonly column?: number;
}

/** Where an object was read from (offline analysis). */
export interface SourceLocation {
  readonly file: string;
  /** 1-based line of the field (or of the object), when it could be found. */
  readonly line?: number;
  /** 1-based column, with the line. */
  readonly column?: number;
}

/** An EnvoyFilter as an analyzer sees it: the ones this controller would write, or the ones found in a cluster. */
export interface EnvoyFilterFacts {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** `aeraki.io/source` (`ServiceEntry/<ns>/<name>`), when present. */
  readonly source?: string;
  /** spec.priority, when it is a number (absent: Istio's default, 0). */
  readonly priority?: number;
  /** spec.workloadSelector.labels, when the filter has a workloadSelector. */
  readonly workloadLabels?: Readonly<Record<string, string>>;
  /** spec.targetRefs (or the legacy spec.targetRef), when any. */
  readonly targetRefs?: readonly PolicyTargetRef[];
  readonly patches: readonly EnvoyFilterPatchFacts[];
}

export interface EnvoyFilterPatchFacts {
  /** `NETWORK_FILTER`, `LISTENER`, ... */
  readonly applyTo: string;
  /** `REPLACE`, `MERGE`, `INSERT_BEFORE`, ... */
  readonly operation: string;
  /** `SIDECAR_INBOUND`, `SIDECAR_OUTBOUND`, `GATEWAY`, `ANY` (absent = ANY), or `WAYPOINT` (never applied). */
  readonly context?: string;
  /** match.listener.name (`10.96.10.20_20880`). */
  readonly listenerName?: string;
  /** match.listener.portNumber. */
  readonly portNumber?: number;
  /**
   * match.listener.filterChain.destinationPort: the filter chain of a shared listener (`virtualInbound`) an inbound
   * patch is for, the port the workload receives on.
   */
  readonly destinationPort?: number;
  /** match.listener.filterChain.filter.name (`envoy.filters.network.tcp_proxy`). */
  readonly filterName?: string;
}

/** What a live analysis learns about the cluster beyond the objects the controller reads. */
export interface ClusterFacts {
  readonly namespaces: readonly {
    readonly name: string;
    readonly labels: Readonly<Record<string, string>>;
  }[];
  /** Pods of the namespaces analysed (only the fields used). */
  readonly pods: readonly PodFacts[];
  /** istiod's version (`1.24.2`), when it could be read; absent when not found or not allowed. */
  readonly istiodVersion?: string;
  /** Every EnvoyFilter in the namespaces analysed, this controller's (label manager=Aeraki) and others'. */
  readonly envoyFilters: readonly EnvoyFilterFacts[];
  /** What could not be read (RBAC, a missing CRD): each becomes an info message, the analysis goes on. */
  readonly unreadable: readonly UnreadableFacts[];
}

/** One kind a live analysis could not read (all of it, or in some namespaces). */
export interface UnreadableFacts {
  /** The kind (`Pod`, `MetaRouter`): analyzers that need it stay silent (live/unreadable.ts). */
  readonly kind: string;
  /** Why, one line (`forbidden: list pods in all namespaces (...): not analysed`). */
  readonly reason: string;
}

export interface PodFacts {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The image of the container named `istio-proxy` (sidecar), when the pod has one. */
  readonly proxyImage?: string;
}

export interface AnalysisOptions {
  readonly rootNamespace: string;
  readonly namespaceScope: boolean;
  /** Whether the mesh allocates addresses to ServiceEntries without one (ISTIO_META_DNS_AUTO_ALLOCATE). */
  readonly vipAllocation: boolean;
  /** Images (repository, with or without tag) known to carry the MetaProtocol proxy. */
  readonly metaProtocolImages: readonly string[];
  /** Images known to be Envoy builds with contrib extensions (Kafka, ...). */
  readonly contribImages: readonly string[];
  /** Kubernetes cluster domain of Service hosts (`<svc>.<ns>.svc.<domain>`); default cluster.local. */
  readonly clusterDomain?: string;
  /** `--waypoint-envoyfilters`: generation writes filters for Istio waypoints; the ambient codes word advice by it. */
  readonly waypointFilters?: boolean;
}

export interface AnalysisInput {
  /** The objects read (valid, rejected, and the issues found reading them). */
  readonly objects: ParsedObjects;
  /** Every issue validate would report (parse and generation), with their admission severity. */
  readonly issues: readonly ConfigIssue[];
  /** The EnvoyFilters this controller would write for `objects`. */
  readonly generated: readonly EnvoyFilterFacts[];
  readonly options: AnalysisOptions;
  /** Present for a live analysis only. */
  readonly cluster?: ClusterFacts;
  /**
   * The Namespaces, Gateway API Gateways and GatewayClasses read (files, and live the cluster's), as generation
   * sees them (model/ambient/binding.ts waypointOf); absent: none read, no service is in ambient mode or bound.
   */
  readonly ambient?: AmbientView;
  /**
   * The names port names select protocols by (plugins/registry.ts createProtocolNames: each plugin's and those
   * recognised with no plugin), in order.
   */
  readonly detectedProtocols: readonly Protocol[];
  /** The L7 protocols some generator handles (`dubbo`, `metaprotocol`, ...); absent: every detected protocol. */
  readonly handledProtocols?: readonly string[];
  /** What the plugins declare of their protocols (contrib filters, well-known ports); absent: nothing. */
  readonly protocols?: readonly ProtocolFacts[];
  /**
   * The EnvoyFilters among the input objects (given in files; the controller's parser skips the kind), reduced
   * to facts. Live, the cluster's are in ClusterFacts.envoyFilters; a file's wins over the cluster's of the same
   * namespace and name. Absent: none.
   */
  readonly envoyFilters?: readonly EnvoyFilterFacts[];
  /**
   * Where an object's field came from (offline: its file, and the line and column of the field `path` or, for a
   * path not written, of the deepest part of it that is); absent or undefined when unknown.
   */
  readonly locate?: (ref: ObjectRef, path: string) => SourceLocation | undefined;
}

export interface Analyzer {
  /** The codes it may report (each listed by exactly one analyzer). */
  readonly codes: readonly AnalysisCode[];
  analyze(input: AnalysisInput): readonly AnalysisMessage[];
  /**
   * The issues of `input.issues` this analyzer reports in its own words (or deliberately leaves out, such as the
   * no-address warning when VIPs are allocated): the catch-all codes (InvalidConfig, ConfigWarning,
   * AdmissionWouldRefuse) skip them, so one problem is reported once. Absent: none.
   */
  covers?(issue: ConfigIssue, input: AnalysisInput): boolean;
}
