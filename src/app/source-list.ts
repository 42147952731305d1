/**
 * The config sources of `aeraki serve` (`--config-source`), a list like the plugins': per kind what the row's
 * help says of it, whether it reads the Kubernetes API, and how the banner names where config comes from. The
 * kinds are derived from this list (ConfigSourceKind); sources.ts builds each kind's sources (its SOURCES, complete
 * by type), options.ts's needsKube, the cmd/ row and the banner read the entries. A new source is its own files (a
 * model/config-source.ts ConfigSource adapter), one entry here, its factory in sources.ts and, with flags of its
 * own, its cmd/ row.
 *
 * Imports nothing: cmd/ reads it at start-up, before any command loads its app module.
 */

export interface SourceDescriptor {
  readonly kind: string;
  /** What the `--config-source` row says of this choice (`mcp (istiod)`), in the parentheses. */
  readonly help: string;
  /** It reads the Kubernetes API, so `serve` needs a kubeconfig (options.ts needsKube). */
  readonly needsKube: boolean;
  /** Where the banner says config comes from; `rel` shortens a path for display. */
  readonly banner: (o: { readonly dir: string }, rel: (path: string) => string) => string;
}

export const SOURCE_LIST = [
  { kind: 'mcp', help: 'istiod', needsKube: true, banner: () => 'mcp' },
  { kind: 'kube', help: 'Kubernetes API', needsKube: true, banner: () => 'kube' },
  { kind: 'dir', help: '--config-dir', needsKube: false, banner: (o, rel) => rel(o.dir) },
] as const satisfies readonly SourceDescriptor[];

export type ConfigSourceKind = (typeof SOURCE_LIST)[number]['kind'];

/** The kinds, in list order (the `--config-source` choices). */
export function sourceKinds(): ConfigSourceKind[] {
  return SOURCE_LIST.map((d) => d.kind);
}

/** The entry of `kind`. */
export function sourceOf(kind: ConfigSourceKind): SourceDescriptor {
  const found = SOURCE_LIST.find((d) => d.kind === kind);
  if (found === undefined) throw new Error(`no config source ${String(kind)}`);
  return found;
}

/** The `--config-source` row's description: each kind with its help. */
export function sourceChoicesHelp(): string {
  return SOURCE_LIST.map((d) => `${d.kind} (${d.help})`).join(' | ');
}
