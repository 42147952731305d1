/**
 * The config sources of `aeraki serve`, by `--config-source`, as a list of ConfigSource (model/config-source.ts):
 * - `mcp`: istiod over MCP-over-xDS for the Istio kinds (source-mcp.ts), plus the Kubernetes API for MetaRouter,
 *   ApplicationProtocol, the plugins' kinds and the mesh ConfigMap (source-kube.ts);
 * - `kube`: everything from the Kubernetes API, Kubernetes Services included (source-kube.ts);
 * - `dir`: everything from a watched directory, Services included (source-dir.ts).
 * `synced` is true once every source has delivered one complete state (a source may turn it false again: a kind
 * forbidden by RBAC). `partial` is true while a source knows only part of its content (a file of the directory
 * never read well; the reconciler holds deletions meanwhile).
 */
import type { FileProblem } from '../controller/dir-files.ts';
import type { McpStatusSnapshot } from '../controller/mcp/index.ts';
import type { ConfigSource, SourceProblems, UnavailableKind } from '../model/config-source.ts';
import type { Logger } from '../util/logger.ts';
import type { SourceContext } from './source-context.ts';
import { DirConfigSource } from './source-dir.ts';
import { KubeConfigSource } from './source-kube.ts';
import type { ConfigSourceKind } from './source-list.ts';
import { McpConfigSource } from './source-mcp.ts';

export { describeUnavailable, type UnavailableKind } from '../model/config-source.ts';
export type { SourceContext } from './source-context.ts';

/** A source as `serve` holds it: the interface, with what some sources add (typed, optional). */
export type ServeSource = ConfigSource &
  Partial<SourceProblems<FileProblem>> & {
    /** An xDS stream's status (the MCP metrics). */
    readonly status?: () => McpStatusSnapshot;
  };

/** The sources each kind of source-list.ts creates, in the order `/readyz` names them. */
const SOURCES: Readonly<Record<ConfigSourceKind, (c: SourceContext) => ServeSource[]>> = {
  mcp: (c) => [new KubeConfigSource(c, false), new McpConfigSource(c)],
  kube: (c) => [new KubeConfigSource(c, true)],
  dir: (c) => [new DirConfigSource(c.source, c.store, c.mesh.rootNamespace, c.logger, c.ambient)],
};

export class ConfigSources {
  readonly list: readonly ServeSource[];
  private readonly log: Logger;

  constructor(c: SourceContext) {
    this.log = c.logger.child({ component: 'sources' });
    this.list = SOURCES[c.source.kind](c);
  }

  /** Every source synced (Istio's aggregate controller: HasSynced when every cache's is). */
  get synced(): boolean {
    return this.list.every((s) => s.synced);
  }

  /** Kinds not read now: not installed (read as empty) or forbidden (not synced). */
  unavailableKinds(): UnavailableKind[] {
    return this.list.flatMap((s) => s.unavailableKinds());
  }

  /** A source knows only part of its content right now (a file of the directory never read well). */
  get partial(): boolean {
    return this.list.some((s) => s.partial);
  }

  /** Readiness detail: which source has not synced yet (the forbidden kinds with the RBAC rule they need). */
  pending(): string[] {
    return this.list.filter((s) => !s.synced).map((s) => s.pending());
  }

  /** The source whose inputs can fail one by one (the directory's files), for /debug/config and the metric. */
  withProblems(): (ServeSource & SourceProblems<FileProblem>) | undefined {
    return this.list.find((s): s is ServeSource & SourceProblems<FileProblem> => s.problems !== undefined);
  }

  /** The source with an xDS stream status (istiod over MCP), for the MCP metrics. */
  streamStatus(): (() => McpStatusSnapshot) | undefined {
    const source = this.list.find((s) => s.status !== undefined);
    return source?.status?.bind(source);
  }

  /** Starts every source (the directory is read synchronously here). */
  async start(): Promise<void> {
    await Promise.all(this.list.map((s) => s.start()));
  }

  /** Resolves once every source synced (stays pending while one never does). */
  async whenSynced(): Promise<void> {
    await Promise.all(this.list.map((s) => s.whenSynced()));
    this.log.debug('every config source synced');
  }

  async stop(): Promise<void> {
    await Promise.all(this.list.map((s) => s.stop()));
  }
}
