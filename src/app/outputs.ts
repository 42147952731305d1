/**
 * The EnvoyFilter outputs of `aeraki serve` (`--output`), a list like the plugins': per kind its sink, whether it
 * needs the Kubernetes API, whether it elects a leader, whether istiod hands what it writes to proxies, the parts it
 * brings (every-replica watches and leader-only writers, kit/runtime.ts), the managed routes `/debug` reads, and what
 * the `--output` row and the banner say of it. A new output is one entry here, its own files, and its kind in
 * options.ts's `OutputKind`.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeInformers } from '../kit/kube/informer-hub.ts';
import type { RuntimePart } from '../kit/runtime.ts';
import type { ManagedRoutes } from '../model/unserved-routes.ts';
import { createDirSink } from '../reconcile/dir-sink.ts';
import { createKubeSink } from '../reconcile/kube-sink.ts';
import { ManagedCache } from '../reconcile/managed-cache.ts';
import type { EnvoyFilterSink } from '../reconcile/sink.ts';
import { kubeOutputParts, type KubeOutputHooks, type KubeOutputOptions } from './kube-parts.ts';
import type { OutputKind, ServeOptions } from './options.ts';
import type { UnavailableKind } from './sources.ts';

/** What an output is built from. */
export interface OutputContext {
  readonly o: KubeOutputOptions & Pick<ServeOptions, 'output'>;
  /** Given whenever the output `needsKube`. */
  readonly kc: KubeConfig | undefined;
  readonly informers: KubeInformers | undefined;
  /** The RDS server's bound port. */
  readonly rdsPort: number;
  readonly hooks: Omit<KubeOutputHooks, 'informers' | 'managedCache'>;
}

/** An output, built. */
export interface BuiltOutput {
  readonly sink: EnvoyFilterSink;
  /** Every-replica parts first, then leader parts. */
  readonly parts: readonly RuntimePart[];
  /** The managed objects as a watch sees them, for the reconciler to plan against (writes then paced). */
  readonly managedCache?: ManagedCache;
  /** The RDS routes each managed EnvoyFilter names (`/debug/routes`, unserved routes). */
  readonly managedRoutes: ManagedRoutes;
  /** The status controller of the Aeraki objects, triggered when what it plans from changes. */
  readonly status?: { trigger(): void };
  /** The kinds written that keep the controller from writing (`/readyz` output check, metrics). */
  readonly unavailableKinds?: () => UnavailableKind[];
}

export interface OutputDescriptor {
  readonly kind: OutputKind;
  /** What the `--output` row's description says of this choice. */
  readonly choice: string;
  /** Where the banner says EnvoyFilters go; `rel` shortens a path for display. */
  readonly banner: (o: Pick<ServeOptions['output'], 'dir'>, rel: (path: string) => string) => string;
  readonly needsKube: boolean;
  /** Leader election runs (with `--leader-elect`); otherwise every replica leads. */
  readonly electsLeader: boolean;
  /** Istiod hands the EnvoyFilters written to its proxies (proxy status has something to report). */
  readonly reachesProxies: boolean;
  build(c: OutputContext): BuiltOutput;
}

const kube: OutputDescriptor = {
  kind: 'kube',
  choice: 'Kubernetes API',
  banner: () => 'the Kubernetes API',
  needsKube: true,
  electsLeader: true,
  reachesProxies: true,
  build: ({ o, kc, informers, rdsPort, hooks }) => {
    if (!kc || !informers) throw new Error('--output kube needs the Kubernetes API');
    const managedCache = new ManagedCache();
    const out = kubeOutputParts(o, kc, rdsPort, { ...hooks, informers, managedCache });
    return {
      sink: createKubeSink(kc),
      parts: out.parts,
      managedCache,
      managedRoutes: out.drift,
      status: out.status,
      unavailableKinds: () => out.unavailableKinds(),
    };
  },
};

const dir: OutputDescriptor = {
  kind: 'dir',
  choice: '--output-dir',
  banner: (o, rel) => `${rel(o.dir)}/`,
  needsKube: false,
  electsLeader: false,
  reachesProxies: false,
  build: ({ o }) => {
    const sink = createDirSink(o.output.dir);
    return { sink, parts: [], managedRoutes: sink };
  },
};

/** The outputs, in the order `--output` lists them. */
export const OUTPUTS: readonly OutputDescriptor[] = [kube, dir];

/** The descriptor of `kind`. */
export function outputOf(kind: OutputKind): OutputDescriptor {
  const found = OUTPUTS.find((d) => d.kind === kind);
  if (!found) throw new Error(`no output ${kind}`);
  return found;
}
