/**
 * AER0105 UnsupportedIstioVersion and AER0109 IstioVersionUnknown: istiod's version (ClusterFacts.istiodVersion,
 * read by cluster-istiod.ts) against the range of Istio minors this controller supports.
 */
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer } from '../types.ts';

/**
 * The Istio minors this controller supports, inclusive.
 * - 1.22: the first release serving `networking.istio.io/v1`, the API version this controller reads
 *   (src/controller/kube/resources.ts; it falls back to v1alpha3, but releases before 1.22 are out of support and
 *   untested here).
 * - 1.31: the newest minor whose shapes the project is written and tested against (spec/wire-formats.md: istio tags
 *   up to 1.31.0-rc.0, MCP type URLs, the `api` generator's authorisation); a newer istiod may change them.
 */
export const SUPPORTED_ISTIO = { min: [1, 22], max: [1, 31] } as const;

const rangeText = `${SUPPORTED_ISTIO.min.join('.')} to ${SUPPORTED_ISTIO.max.join('.')}`;

export const UNSUPPORTED_ISTIO_VERSION: AnalysisCode = {
  code: 'AER0105',
  name: 'UnsupportedIstioVersion',
  severity: 'warning',
  why: `istiod runs a release outside the range this controller supports (Istio ${rangeText}): API versions and EnvoyFilter semantics may differ.`,
  fix: `Run an Istio release from ${rangeText}, or check this controller's release notes for the one you run.`,
  live: true,
  example: `# No objects needed.
# In the cluster: Deployment istio-system/istiod (app=istiod) runs container discovery with image
# docker.io/istio/pilot:1.18.1.`,
};

export const ISTIO_VERSION_UNKNOWN: AnalysisCode = {
  code: 'AER0109',
  name: 'IstioVersionUnknown',
  severity: 'info',
  why: "istiod's version could not be read, so the supported range was not checked.",
  fix: 'Let the user read Deployments in the root namespace, or check the Istio version by hand.',
  live: true,
  example: `# No objects needed.
# In the cluster: no Deployment labelled app=istiod in the root namespace (or Deployments may not be listed).`,
};

/** `[major, minor]` of `1.24.2`, `v1.24`, `1.31.0-rc.0`; undefined when the text names no version. */
export function majorMinor(version: string): readonly [number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(version);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

function compare(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

function analyze(input: AnalysisInput): AnalysisMessage[] {
  const cluster = input.cluster;
  if (!cluster) return [];
  const version = cluster.istiodVersion;
  const mm = version === undefined ? undefined : majorMinor(version);
  if (version === undefined || mm === undefined) {
    const what = version === undefined ? 'not found' : `"${version}" names no release`;
    return [
      {
        code: ISTIO_VERSION_UNKNOWN,
        message: `istiod's version could not be read (${what}): the supported range (Istio ${rangeText}) was not checked`,
      },
    ];
  }
  if (compare(mm, SUPPORTED_ISTIO.min) >= 0 && compare(mm, SUPPORTED_ISTIO.max) <= 0) return [];
  const side = compare(mm, SUPPORTED_ISTIO.min) < 0 ? 'older than' : 'newer than';
  const bound = compare(mm, SUPPORTED_ISTIO.min) < 0 ? SUPPORTED_ISTIO.min : SUPPORTED_ISTIO.max;
  return [
    {
      code: UNSUPPORTED_ISTIO_VERSION,
      message: `istiod runs Istio ${version}, ${side} ${bound.join('.')}: this controller supports Istio ${rangeText}`,
    },
  ];
}

export const istioVersionAnalyzer: Analyzer = {
  codes: [UNSUPPORTED_ISTIO_VERSION, ISTIO_VERSION_UNKNOWN],
  analyze,
};
