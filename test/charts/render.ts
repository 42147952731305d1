// Rendering the Helm charts (charts/) and the kustomize install (manifests/) with the binaries of the layer archive
// (test/support/layer-tools.ts), for the chart tests and the RBAC-from-behaviour tests.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { layerTools } from '../support/layer-tools.ts';

export type KubeObject = Record<string, any>;

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CHART = path.join(ROOT, 'charts/aeraki');
export const CRD_CHART = path.join(ROOT, 'charts/aeraki-crds');
/** The release: the namespace manifests/ name (istio-system), the release name the README gives. */
export const NAMESPACE = 'istio-system';

/** Each kustomize component of manifests/ and the chart value that turns it on (README, Deploying). */
export const COMPONENT_VALUES: Readonly<Record<string, string>> = {
  ambient: 'ambient.enabled=true',
  'cert-manager': 'webhook.enabled=true',
  monitoring: 'monitoring.enabled=true',
  'network-policy': 'networkPolicy.enabled=true',
  waypoint: 'waypoint.enabled=true',
};

const run = promisify(execFile);

const parse = (out: string): KubeObject[] =>
  parseAllDocuments(out)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);

/** `helm template` arguments: the release in istio-system, `--set` values and values files. */
function templateArgs(chart: string, set: readonly string[], files: readonly string[]): string[] {
  return [
    'template',
    'aeraki',
    chart,
    '--namespace',
    NAMESPACE,
    ...set.flatMap((s) => ['--set', s]),
    ...files.flatMap((f) => ['-f', f]),
  ];
}

/** The objects of `helm template` (stderr carries Helm's notes on the linked files, read only on failure). */
export async function helmTemplate(
  chart: string,
  set: readonly string[] = [],
  files: readonly string[] = [],
): Promise<KubeObject[]> {
  const { stdout } = await run(layerTools().helm, templateArgs(chart, set, files), {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 << 20,
  });
  return parse(stdout);
}

export function helmTemplateSync(chart: string, set: readonly string[] = []): KubeObject[] {
  const out = execFileSync(layerTools().helm, templateArgs(chart, set, []), {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return parse(out);
}

/** helm with `args`: its exit code and its whole output (for refusals and lint findings). */
export async function helm(args: readonly string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(layerTools().helm, [...args], { encoding: 'utf8', timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

/** `kubectl kustomize` of manifests/ with `components` (an overlay in a temporary directory: kustomize takes relative paths only). */
export async function kustomize(components: readonly string[]): Promise<KubeObject[]> {
  const manifests = path.join(ROOT, 'manifests');
  const overlay = mkdtempSync(path.join(tmpdir(), 'aeraki-chart-'));
  try {
    const list = components.map((c) => path.relative(overlay, path.join(manifests, c))).join(', ');
    writeFileSync(
      path.join(overlay, 'kustomization.yaml'),
      `resources: [${path.relative(overlay, manifests)}]\ncomponents: [${list}]\n`,
    );
    const { stdout } = await run(layerTools().kubectl, ['kustomize', overlay], {
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 64 << 20,
    });
    return parse(stdout);
  } finally {
    rmSync(overlay, { recursive: true, force: true });
  }
}

/** `Kind namespace/name`, or `Kind name` for a cluster-scoped object. */
export const keyOf = (o: KubeObject): string =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/** Labels only the chart sets (Helm's recommended labels), and the CRDs' keep policy. */
const CHART_LABEL = /^(helm\.sh\/|app\.kubernetes\.io\/)/;

/** The object as kustomize would build it: without the labels and annotation that only Helm needs. */
export function withoutHelmMetadata(o: KubeObject): KubeObject {
  const metadata = { ...o.metadata };
  const labels = Object.fromEntries(Object.entries(metadata.labels ?? {}).filter(([k]) => !CHART_LABEL.test(k)));
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  else delete metadata.labels;
  const annotations = { ...metadata.annotations };
  delete annotations['helm.sh/resource-policy'];
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  return { ...o, metadata };
}
