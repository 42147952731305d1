/**
 * `aeraki serve` options of the EnvoyFilter output: where the filters go, which are written (waypoint filters, the
 * MetaProtocol images) and the reconciler's timings.
 */
import type { OutputKind, OutputOptions, ReconcileOptions } from '../src/app/options.ts';
import { OUTPUTS } from '../src/app/outputs.ts';
import { text, parseBoolean, oneOf, parseDurationMs } from './parsers.ts';
import { METAPROTOCOL_IMAGES_ROW, type RowTable } from './rows.ts';

export interface OutputFlags {
  readonly output: OutputKind;
  readonly outputDir: string;
  readonly namespaceScope: boolean;
  readonly waypointFilters: boolean;
  /** The flag's images alone; serve-config.ts puts the known ones first. */
  readonly metaProtocolImages: readonly string[];
  readonly debounceAfterMs: number;
  readonly debounceMaxMs: number;
  readonly resyncMs: number;
}

export const OUTPUT_ROWS = {
  output: {
    flag: '--output <sink>',
    env: 'AERAKI_OUTPUT',
    default: 'kube',
    description: `where EnvoyFilters go: ${OUTPUTS.map((d) => `${d.kind} (${d.choice})`).join(' | ')}`,
    parse: oneOf(...OUTPUTS.map((d) => d.kind)),
  },
  outputDir: {
    flag: '--output-dir <dir>',
    env: 'AERAKI_OUTPUT_DIR',
    default: '',
    description: 'directory the EnvoyFilters are written to (--output dir)',
    parse: text,
  },
  namespaceScope: {
    flag: '--namespace-scope [bool]',
    env: 'AERAKI_ENABLE_ENVOY_FILTER_NS_SCOPE',
    default: false,
    description: "filters without exportTo go to their ServiceEntry's namespace",
    parse: parseBoolean,
  },
  waypointFilters: {
    flag: '--waypoint-envoyfilters [bool]',
    env: 'AERAKI_WAYPOINT_ENVOYFILTERS',
    default: false,
    description:
      'read Namespaces and Gateway API Gateways/GatewayClasses too and write EnvoyFilters for Istio waypoints (targetRefs; Istio documents this as unsupported)',
    parse: parseBoolean,
  },
  metaProtocolImages: {
    ...METAPROTOCOL_IMAGES_ROW,
    env: 'AERAKI_METAPROTOCOL_IMAGES',
    description: `${METAPROTOCOL_IMAGES_ROW.description}: waypoints running one get MetaProtocol filters`,
  },
  debounceAfterMs: {
    flag: '--debounce-after <duration>',
    env: 'AERAKI_DEBOUNCE_AFTER',
    default: 1000,
    description: 'EnvoyFilter reconcile: quiet period after the last change',
    parse: parseDurationMs,
  },
  debounceMaxMs: {
    flag: '--debounce-max <duration>',
    env: 'AERAKI_DEBOUNCE_MAX',
    default: 10_000,
    description: 'EnvoyFilter reconcile: maximum delay after the first change',
    parse: parseDurationMs,
  },
  resyncMs: {
    flag: '--resync-period <duration>',
    env: 'AERAKI_RESYNC_PERIOD',
    default: 300_000,
    description: 'periodic full reconcile (0 disables)',
    parse: parseDurationMs,
  },
} satisfies RowTable<OutputFlags>;

export function outputOptions(f: OutputFlags): OutputOptions {
  return {
    kind: f.output,
    dir: f.outputDir,
    namespaceScope: f.namespaceScope,
    waypointFilters: f.waypointFilters,
    metaProtocolImages: f.metaProtocolImages,
  };
}

export function reconcileOptions(f: OutputFlags): ReconcileOptions {
  return { debounceAfterMs: f.debounceAfterMs, debounceMaxMs: f.debounceMaxMs, resyncMs: f.resyncMs };
}
