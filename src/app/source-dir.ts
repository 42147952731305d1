/** `--config-source dir`: everything from a watched directory, Services included. */
import { fileLimitsOf } from '../controller/config-file.ts';
import type { FileProblem } from '../controller/dir-files.ts';
import { DirSource } from '../controller/dir-source.ts';
import type { ConfigStore } from '../controller/store.ts';
import type { ConfigSource, SourceProblems, UnavailableKind } from '../model/config-source.ts';
import type { Logger } from '../util/logger.ts';
import type { SourceOptions } from './options.ts';

/** The directory source, with its files that cannot be used (/debug/config, the file-errors metric). */
export class DirConfigSource implements ConfigSource, SourceProblems<FileProblem> {
  readonly name = 'directory';
  private readonly dir: DirSource;

  /** `ambient`: read Namespaces, Gateway API Gateways and GatewayClasses too (SourceContext.ambient). */
  constructor(o: SourceOptions, store: ConfigStore, rootNamespace: string, logger: Logger, ambient = false) {
    this.dir = new DirSource({
      ambient,
      dir: o.dir,
      store,
      rootNamespace,
      debounceMs: o.watchDebounceMs,
      limits: fileLimitsOf(o),
      ...(o.stateFile !== undefined && o.stateFile !== '' ? { stateFile: o.stateFile } : {}),
      logger,
    });
  }

  /** Reads the directory synchronously (before returning), then watches it. */
  start(): Promise<void> {
    this.dir.start();
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return this.dir.stop();
  }

  get synced(): boolean {
    return this.dir.synced;
  }

  /** Nothing to wait for: start() read the directory. */
  whenSynced(): Promise<void> {
    return Promise.resolve();
  }

  pending(): string {
    return this.name;
  }

  get partial(): boolean {
    return this.dir.partial;
  }

  unavailableKinds(): readonly UnavailableKind[] {
    return [];
  }

  problems(): FileProblem[] {
    return this.dir.problems();
  }

  onProblemsChanged(listener: () => void): () => void {
    return this.dir.onProblemsChanged(listener);
  }
}
