/**
 * The EnvoyFilter outputs of `aeraki serve` (`--output`), a list like the plugins': per kind its sink, whether it
 * needs the Kubernetes API, whether it elects a leader, whether istiod hands what it writes to proxies, the parts it
 * brings (every-replica watches and leader-only writers, kit/runtime.ts), the managed routes `/debug` reads, and what
 * the `--output` row, the banner and serve's flag checks (cmd/serve-config.ts) say of it. A new output is its own
 * files, its kind in options.ts's `OutputKind` and its descriptor here (the compiler asks for both).
 */
import type { OutputKind, ServeOptions } from './options.ts';
import type { BuiltOutput, OutputContext } from './output-parts.ts';

export interface OutputDescriptor {
  readonly kind: OutputKind;
  /** What the `--output` row's description says of this choice. */
  readonly choice: string;
  /** Where the banner says EnvoyFilters go; `rel` shortens a path for display. */
  readonly banner: (o: Pick<ServeOptions['output'], 'dir'>, rel: (path: string) => string) => string;
  readonly needsKube: boolean;
  /** Leader election runs (with `--leader-elect`); otherwise every replica leads. */
  readonly electsLeader: boolean;
  /**
   * Its parts include the namespace bootstrap and the VIP allocator, which write into the Kubernetes API
   * (`--namespace-bootstrap`, `--allocate-vips`).
   */
  readonly clusterWriters: boolean;
  /** Istiod hands the EnvoyFilters written to its proxies (proxy status has something to report). */
  readonly reachesProxies: boolean;
  /** Builds the sink and the parts (loaded on use: the commands that do not serve load no Kubernetes client). */
  build(c: OutputContext): Promise<BuiltOutput>;
}

const kube: OutputDescriptor & { readonly kind: 'kube' } = {
  kind: 'kube',
  choice: 'Kubernetes API',
  banner: () => 'the Kubernetes API',
  needsKube: true,
  electsLeader: true,
  clusterWriters: true,
  reachesProxies: true,
  build: async (c) => (await import('./kube-parts.ts')).buildKubeOutput(c),
};

const dir: OutputDescriptor & { readonly kind: 'dir' } = {
  kind: 'dir',
  choice: '--output-dir',
  banner: (o, rel) => `${rel(o.dir)}/`,
  needsKube: false,
  electsLeader: false,
  clusterWriters: false,
  reachesProxies: false,
  build: async ({ o }) => {
    const sink = (await import('../reconcile/dir-sink.ts')).createDirSink(o.output.dir);
    return { sink, parts: [], managedRoutes: sink };
  },
};

/** One descriptor per OutputKind (a kind without one, or one of no kind, is a type error), in `--output` order. */
const BY_KIND: { readonly [K in OutputKind]: OutputDescriptor & { readonly kind: K } } = { kube, dir };

/** The outputs, in the order `--output` lists them. */
export const OUTPUTS: readonly OutputDescriptor[] = Object.values(BY_KIND);

/** The kinds whose descriptor has `property` (`kube` for `electsLeader`), for the flags' errors. */
export function outputsWith(property: 'electsLeader' | 'clusterWriters'): string {
  return OUTPUTS.filter((d) => d[property])
    .map((d) => d.kind)
    .join(' or ');
}

/** The descriptor of `kind`. */
export function outputOf(kind: OutputKind): OutputDescriptor {
  const found = OUTPUTS.find((d) => d.kind === kind);
  if (!found) throw new Error(`no output ${kind}`);
  return found;
}
