// Offline validation of everything users apply: `kubectl kustomize manifests/` must build, every object must
// validate against the Kubernetes schemas (kubernetes-models; the Prometheus operator's for monitoring/), nothing may own istio-system, the CRD schemas must be
// structural, accept every object of their kind the controller accepts (fixtures, examples/, Aeraki's demos) and
// refuse invalid ones (CEL rules through their twins, crd-schema.ts), and every EnvoyFilter the generators write
// must validate against Istio's EnvoyFilter schema (@kubernetes-models/istio).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { EnvoyFilter } from '@kubernetes-models/istio/networking.istio.io/v1alpha3/EnvoyFilter';
import { VirtualService } from '@kubernetes-models/istio/networking.istio.io/v1alpha3/VirtualService';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ValidatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { fillStore, parseRawObjects } from '../../src/controller/file-source.ts';
import {
  aerakiResources,
  istioResources,
  SERVICE_RESOURCE,
} from '../../src/controller/kube/resources.ts';
import { parseConfigObject } from '../../src/model/parse/parse.ts';
import { Command } from 'commander';
import { addOptions, resolveConfig } from '../../cmd/rows.ts';
import { SERVE_ROWS } from '../../cmd/serve-config.ts';
import { certProviderOfFlags } from '../../cmd/serve-rows-identity.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { createGenerators, createPluginKinds } from '../../src/plugins/registry.ts';
import { loadCorpus } from '../conformance/corpus.ts';
import { readFolder } from '../support/as-applied.ts';
import { CEL_TWINS, celRules, CrdChecker, newAjv } from './crd-schema.ts';
import { PARSE_OPTIONS } from '../support/kinds.ts';

/** The controller's own CRDs: the core's and the plugins'. */
const AERAKI_RESOURCES = aerakiResources(createPluginKinds());

const ROOT = resolve(import.meta.dirname, '../..');

type Model = new (data: any) => { validate(): void };
const MODELS: Record<string, Model> = {
  ServiceAccount,
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
  Service,
  Deployment,
  CustomResourceDefinition,
  ValidatingWebhookConfiguration,
  PodDisruptionBudget,
  NetworkPolicy,
  ConfigMap,
  ServiceMonitor,
  PrometheusRule,
};

const AERAKI_KINDS = ['MetaRouter', 'ApplicationProtocol', 'DubboAuthorizationPolicy', 'RedisService', 'RedisDestination'];
const DEMOS = resolve(ROOT, '../shared/aeraki-demos');

/** Every object of an Aeraki kind in the fixtures, examples/ and Aeraki's demo folders, with where it comes from. */
function aerakiObjects(): { source: string; raw: Record<string, any> }[] {
  const fixtures = loadCorpus().flatMap((input) => (input.raws as Record<string, any>[]).map((raw) => ({ source: input.name, raw })));
  const examples = readFolder(resolve(ROOT, 'examples')).map((raw) => ({ source: 'examples', raw }));
  const demos = readdirSync(DEMOS)
    .filter((d) => statSync(join(DEMOS, d)).isDirectory())
    .flatMap((d) => readFolder(join(DEMOS, d)).map((raw) => ({ source: `demo ${d}`, raw })));
  return [...fixtures, ...examples, ...demos].filter((o) => AERAKI_KINDS.includes(o.raw.kind));
}

function kustomize(dir = resolve(ROOT, 'manifests')): Record<string, any>[] {
  const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 60_000 });
  return parseAllDocuments(out).map((d) => d.toJS() as Record<string, any>);
}

/** A structural schema (apiextensions v1): every node states its type, except where unknown fields are preserved. */
function assertStructural(schema: Record<string, any>, path: string): void {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && !schema.properties) return;
  assert.ok(typeof schema.type === 'string', `${path}: no type`);
  for (const [k, v] of Object.entries<Record<string, any>>(schema.properties ?? {})) assertStructural(v, `${path}.${k}`);
  if (schema.items) assertStructural(schema.items, `${path}[]`);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    assertStructural(schema.additionalProperties, `${path}{}`);
  }
}

describe('manifests', () => {
  const objects = kustomize();

  it('kustomize builds the whole install', () => {
    const kinds = objects.map((o) => o.kind).sort();
    for (const k of ['CustomResourceDefinition', 'Deployment', 'Service', 'ServiceAccount', 'ClusterRole']) {
      assert.ok(kinds.includes(k), `missing ${k}`);
    }
  });

  it('every object validates against the Kubernetes schemas', () => {
    for (const o of objects) {
      const model = MODELS[o.kind];
      assert.ok(model, `no schema for ${o.kind}`);
      new model(o).validate();
    }
  });

  /** The install with `components` of manifests/ (kustomize takes relative paths only). */
  const withComponents = (...components: string[]): Record<string, any>[] => {
    const overlay = mkdtempSync(resolve(tmpdir(), 'aeraki-kustomize-'));
    try {
      const rel = (p: string) => relative(overlay, resolve(ROOT, p));
      const list = components.map((c) => rel(`manifests/${c}`)).join(', ');
      writeFileSync(resolve(overlay, 'kustomization.yaml'), `resources: [${rel('manifests')}]\ncomponents: [${list}]\n`);
      return kustomize(overlay);
    } finally {
      rmSync(overlay, { recursive: true, force: true });
    }
  };
  const withCertManager = () => withComponents('cert-manager');
  /** Every kustomize component under manifests/ (a folder whose kustomization is a Component). */
  const components = readdirSync(resolve(ROOT, 'manifests'))
    .filter((d) => statSync(resolve(ROOT, 'manifests', d)).isDirectory())
    .filter((d) => /^kind: Component$/m.test(readFileSync(resolve(ROOT, 'manifests', d, 'kustomization.yaml'), 'utf8')))
    .sort();

  /** `aeraki serve`'s options from the container's args and env, as the pod would run (downward API resolved). */
  const podOptions = (deploy: Record<string, any>) => {
    const pod = deploy.spec.template.spec;
    const c = pod.containers[0];
    const fields: Record<string, string> = {
      'metadata.namespace': deploy.metadata.namespace,
      'metadata.name': 'aeraki-0',
      'spec.serviceAccountName': pod.serviceAccountName,
    };
    const env: Record<string, string> = { KUBERNETES_SERVICE_HOST: '10.96.0.1' };
    for (const e of c.env) env[e.name] = e.value ?? fields[e.valueFrom.fieldRef.fieldPath];
    const cmd = addOptions(new Command('serve').exitOverride(), SERVE_ROWS);
    cmd.parse(c.args.slice(1), { from: 'user' });
    const options = resolveConfig(SERVE_ROWS, cmd, env); // serveConfig would also check that the files exist
    return { ...options, certProvider: certProviderOfFlags(options) };
  };

  /** Where a file path of the container comes from: [volume, key] through its mounts. */
  const volumeOf = (deploy: Record<string, any>, file: string) => {
    const pod = deploy.spec.template.spec;
    const mount = pod.containers[0].volumeMounts.find((m: { mountPath: string }) => file.startsWith(`${m.mountPath}/`));
    assert.ok(mount, `no mount holds ${file}`);
    return [pod.volumes.find((v: { name: string }) => v.name === mount.name), file.slice(mount.mountPath.length + 1)];
  };

  it('certificates from istiod with no Secret: the projected istio-ca token, the mesh root ConfigMap, the identity', () => {
    const deploy = objects.find((o) => o.kind === 'Deployment')!;
    const o = podOptions(deploy);
    assert.equal(o.certProvider, 'istiod');
    assert.deepEqual([o.istiodAddress, o.caAddress], ['istiod.istio-system.svc:15012', ''], 'the CA: istiod on 15012');
    assert.equal(o.podNamespace, 'istio-system');
    assert.equal(o.serviceAccount, 'aeraki');
    assert.ok(objects.some((x) => x.kind === 'ServiceAccount' && x.metadata.name === o.serviceAccount));
    const [token, tokenPath] = volumeOf(deploy, o.caTokenFile);
    const source = token.projected.sources.find((s: Record<string, any>) => s.serviceAccountToken).serviceAccountToken;
    assert.equal(source.audience, 'istio-ca');
    assert.equal(source.path, tokenPath);
    const [root, rootKey] = volumeOf(deploy, o.caRootCertFile);
    assert.deepEqual([root.configMap.name, rootKey], ['istio-ca-root-cert', 'root-cert.pem']);
    assert.equal(o.clientCaFile, '', 'RDS clients are verified against the mesh root');
    assert.deepEqual(volumeOf(deploy, o.istiodTokenFile)[0], token, 'the MCP client authenticates with the same token');
    const volumes = deploy.spec.template.spec.volumes;
    assert.deepEqual(volumes.filter((v: Record<string, unknown>) => v.secret), [], 'no Secret is needed');
    assert.equal(objects.filter((x) => x.kind === 'ValidatingWebhookConfiguration').length, 0);
  });

  it('the cert-manager component: Issuer, Certificate, the webhook with its CA injected and its certificate from the Secret; RDS keeps istiod', () => {
    const built = withCertManager();
    const cert = built.find((o) => o.kind === 'Certificate')!;
    assert.equal(cert.spec.secretName, 'aeraki-serving-cert');
    assert.ok(cert.spec.dnsNames.includes('aeraki.istio-system.svc'));
    assert.ok(built.some((o) => o.kind === 'Issuer' && o.metadata.name === cert.spec.issuerRef.name));
    const deploy = built.find((o) => o.kind === 'Deployment')!;
    new Deployment(deploy).validate();
    const o = podOptions(deploy);
    assert.equal(o.certProvider, 'istiod', 'RDS keeps the certificate sidecars verify against the mesh root');
    assert.deepEqual([o.tlsCertFile, o.tlsKeyFile], ['', '']);
    for (const file of [o.webhookCertFile, o.webhookKeyFile]) {
      assert.equal(volumeOf(deploy, file)[0].secret.secretName, 'aeraki-serving-cert', file);
    }
    const hook = built.find((o) => o.kind === 'ValidatingWebhookConfiguration')!;
    new ValidatingWebhookConfiguration(hook).validate();
    assert.equal(hook.metadata.annotations['cert-manager.io/inject-ca-from'], 'istio-system/aeraki-serving-cert');
    const w = hook.webhooks[0];
    assert.equal(w.failurePolicy, 'Ignore');
    assert.deepEqual(w.clientConfig.service, { name: 'aeraki', namespace: 'istio-system', path: '/validate', port: 443 });
    const resources = w.rules.flatMap((r: { resources: string[] }) => r.resources).sort();
    assert.deepEqual(resources, ['applicationprotocols', 'dubboauthorizationpolicies', 'metarouters', 'redisdestinations', 'redisservices']);
    const port = built.find((o) => o.kind === 'Service')!.spec.ports.find((p: { port: number }) => p.port === 443);
    const c = deploy.spec.template.spec.containers[0];
    assert.equal(c.ports.find((p: { name: string }) => p.name === port.targetPort).containerPort, o.webhookAddress?.port);
  });

  it('the ambient component turns --waypoint-envoyfilters on, which the base install leaves off', () => {
    const base = podOptions(objects.find((o) => o.kind === 'Deployment')!);
    assert.equal(base.waypointFilters, false);
    const ambient = podOptions(withComponents('ambient').find((o) => o.kind === 'Deployment')!);
    assert.equal(ambient.waypointFilters, true);
  });

  it('every component builds, validates and gives the container no flag twice (the last would silently win)', () => {
    assert.deepEqual(components, ['ambient', 'cert-manager', 'monitoring', 'network-policy', 'waypoint']);
    for (const set of [...components.map((c) => [c]), components]) {
      const built = withComponents(...set);
      for (const o of built) if (MODELS[o.kind]) new MODELS[o.kind]!(o).validate();
      // The monitoring component's objects all have a schema here (the Prometheus operator's, Kubernetes').
      if (set.includes('monitoring')) {
        for (const kind of ['ServiceMonitor', 'PrometheusRule', 'ConfigMap']) {
          assert.ok(built.some((o) => o.kind === kind), `monitoring: no ${kind}`);
        }
      }
      const args: string[] = built.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args;
      const flags = args.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]!);
      const twice = flags.filter((f, i) => flags.indexOf(f) !== i);
      assert.deepEqual(twice, [], `components ${set.join(', ')}: flags given twice`);
    }
  });

  it('a PodDisruptionBudget keeps one of the two replicas through a drain', () => {
    const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget')!;
    const deploy = objects.find((o) => o.kind === 'Deployment')!;
    assert.equal(pdb.spec.minAvailable, 1);
    assert.ok(deploy.spec.replicas > pdb.spec.minAvailable, 'a drain may evict one replica');
    assert.deepEqual(pdb.spec.selector.matchLabels, deploy.spec.template.metadata.labels);
    assert.equal(pdb.metadata.namespace, deploy.metadata.namespace);
  });

  it('the MCP server (--registry-output mcp) has its container port and a Service port, as the README addresses it', () => {
    const deploy = objects.find((o) => o.kind === 'Deployment')!;
    const service = objects.find((o) => o.kind === 'Service')!;
    const mcpServer = SERVE_ROWS.mcpServerAddress.default as { port: number };
    const container = deploy.spec.template.spec.containers[0].ports.find((p: { name: string }) => p.name === 'grpc-mcp');
    assert.equal(container?.containerPort, mcpServer.port);
    const port = service.spec.ports.find((p: { name: string }) => p.name === 'grpc-mcp');
    assert.deepEqual(port, { name: 'grpc-mcp', port: 15011, targetPort: 'grpc-mcp', protocol: 'TCP', appProtocol: 'grpc' });
    assert.match(readFileSync(resolve(ROOT, 'README.md'), 'utf8'), /xds:\/\/aeraki\.istio-system:15011/);
  });

  it('the network-policy component admits each listening port from where it is needed only', () => {
    const built = withComponents('network-policy');
    const policy = built.find((o) => o.kind === 'NetworkPolicy')!;
    const deploy = built.find((o) => o.kind === 'Deployment')!;
    assert.deepEqual(policy.spec.podSelector.matchLabels, deploy.spec.template.metadata.labels);
    assert.deepEqual(policy.spec.policyTypes, ['Ingress']);
    const admitted = new Map<number, unknown[] | undefined>();
    for (const rule of policy.spec.ingress) for (const p of rule.ports) admitted.set(p.port, rule.from);
    const containerPorts = deploy.spec.template.spec.containers[0].ports.map((p: { containerPort: number }) => p.containerPort);
    const mcpServer = SERVE_ROWS.mcpServerAddress.default as { port: number };
    assert.deepEqual([...admitted.keys()].sort(), [...new Set([...containerPorts, mcpServer.port])].sort());
    assert.deepEqual(admitted.get(15010), [{ namespaceSelector: {} }], 'RDS from every namespace');
    assert.equal(admitted.get(15017), undefined, 'the webhook from the API server, which no selector names');
    const istiod = admitted.get(mcpServer.port) as Record<string, any>[];
    assert.deepEqual(istiod[0]!.podSelector, { matchLabels: { app: 'istiod' } }, 'MCP from istiod only');
    const admin = admitted.get(8080) as Record<string, any>[];
    assert.ok(admin.length === 1 && admin[0]!.namespaceSelector.matchLabels, 'admin from one namespace only');
  });

  it('the image exposes every port the manifests name', () => {
    const exposed = /^EXPOSE (.+)$/m.exec(readFileSync(resolve(ROOT, 'Dockerfile'), 'utf8'))![1]!.split(' ').map(Number);
    const policy = withComponents('network-policy').find((o) => o.kind === 'NetworkPolicy')!;
    const ports = policy.spec.ingress.flatMap((r: { ports: { port: number }[] }) => r.ports.map((p) => p.port));
    assert.deepEqual([...exposed].sort(), [...ports].sort());
  });

  it('gets Secrets (Redis auth) by name, lists and watches only the waypoint CA by name, writes none, and runs non-root on a read-only root filesystem', () => {
    for (const o of objects.filter((x) => x.kind === 'ClusterRole' || x.kind === 'Role')) {
      for (const rule of o.rules) {
        assert.ok(!rule.resources.includes('*'));
        if (!rule.resources.includes('secrets')) continue;
        if (rule.resourceNames === undefined) assert.deepEqual(rule.verbs, ['get']);
        else {
          assert.deepEqual(rule.resourceNames, ['aeraki-waypoint-ca']);
          assert.deepEqual(rule.verbs, ['list', 'watch']);
        }
      }
    }
    const deploy = objects.find((o) => o.kind === 'Deployment')!;
    assert.equal(deploy.spec.replicas, 2);
    const c = deploy.spec.template.spec.containers[0];
    assert.equal(c.securityContext.readOnlyRootFilesystem, true);
    assert.equal(deploy.spec.template.spec.securityContext.runAsNonRoot, true);
    assert.ok(c.readinessProbe && c.livenessProbe && c.resources.requests);
  });

  it('the ClusterRole lets the Kubernetes source list and watch everything it reads', () => {
    const role = objects.find((o) => o.kind === 'ClusterRole')!;
    const grants = (group: string, plural: string, verb: string) =>
      role.rules.some(
        (r: Record<string, string[]>) =>
          r.apiGroups!.includes(group) && r.resources!.includes(plural) && r.verbs!.includes(verb),
      );
    // EndpointSlices: the ports Services' pods receive on (D16; src/controller/kube/endpoint-slices.ts).
    const slices = { group: 'discovery.k8s.io', plural: 'endpointslices' };
    const read = [...AERAKI_RESOURCES, ...istioResources('v1'), SERVICE_RESOURCE, slices];
    for (const r of read) {
      for (const verb of ['list', 'watch']) assert.ok(grants(r.group, r.plural, verb), `${verb} ${r.plural}`);
    }
  });

  it('the ClusterRole lets the status controller write statuses of the Aeraki CRDs and create Events', () => {
    const role = objects.find((o) => o.kind === 'ClusterRole')!;
    const grants = (group: string, plural: string, verb: string) =>
      role.rules.some(
        (r: Record<string, string[]>) =>
          r.apiGroups!.includes(group) && r.resources!.includes(plural) && r.verbs!.includes(verb),
      );
    for (const r of AERAKI_RESOURCES) {
      assert.ok(grants(r.group, `${r.plural}/status`, 'patch'), `patch ${r.plural}/status`);
      assert.ok(!grants(r.group, r.plural, 'patch'), `the spec of ${r.plural} is never written`);
    }
    assert.ok(grants('events.k8s.io', 'events', 'create'), 'create events');
  });

  it('the ClusterRole lets the registry output write ServiceEntries (--registry-output kube)', () => {
    const role = objects.find((o) => o.kind === 'ClusterRole')!;
    for (const verb of ['list', 'create', 'update', 'delete']) {
      assert.ok(
        role.rules.some(
          (r: Record<string, string[]>) =>
            r.apiGroups!.includes('networking.istio.io') &&
            r.resources!.includes('serviceentries') &&
            r.verbs!.includes(verb),
        ),
        `${verb} serviceentries`,
      );
    }
  });

  const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition');
  const schemaOf = (kind: string) =>
    crds.find((c) => c.spec.names.kind === kind)!.spec.versions[0].schema.openAPIV3Schema as Record<string, any>;

  it('CRD schemas are structural and complete', () => {
    for (const crd of crds) assertStructural(crd.spec.versions[0].schema.openAPIV3Schema, crd.metadata.name);
    const spec = schemaOf('MetaRouter').properties.spec.properties;
    for (const f of ['hosts', 'gateways', 'exportTo', 'routes', 'localRateLimit', 'globalRateLimit']) assert.ok(spec[f], f);
    const route = spec.routes.items.properties;
    for (const f of ['name', 'match', 'route', 'mirror', 'mirrorPercentage', 'requestMutation', 'responseMutation']) {
      assert.ok(route[f], `routes[].${f}`);
    }
    assert.equal(crds.find((c) => c.spec.names.kind === 'ApplicationProtocol')!.spec.scope, 'Cluster');
    const dap = crds.find((c) => c.spec.names.kind === 'DubboAuthorizationPolicy')!;
    assert.equal(dap.metadata.name, 'dubboauthorizationpolicies.dubbo.aeraki.io');
    assert.equal(dap.spec.scope, 'Namespaced');
    const rule = schemaOf('DubboAuthorizationPolicy').properties.spec.properties.rules.items.properties;
    assert.deepEqual(Object.keys(rule.from.items.properties.source.properties).sort(), [
      'namespaces',
      'notNamespaces',
      'notPrincipals',
      'principals',
    ]);
    assert.deepEqual(Object.keys(rule.to.items.properties.operation.properties).sort(), [
      'interfaces',
      'methods',
      'notInterfaces',
      'notMethods',
    ]);
  });

  it('the Redis CRDs define the fields the parser reads', () => {
    const rs = schemaOf('RedisService').properties.spec.properties;
    for (const f of ['host', 'settings', 'redis', 'faults']) assert.ok(rs[f], `RedisService ${f}`);
    const rd = schemaOf('RedisDestination').properties.spec.properties;
    for (const f of ['host', 'trafficPolicy']) assert.ok(rd[f], `RedisDestination ${f}`);
  });

  const checkers = (): Map<string, CrdChecker> => {
    const ajv = newAjv();
    return new Map(crds.map((c) => [c.spec.names.kind as string, new CrdChecker(ajv, c.spec.versions[0].schema.openAPIV3Schema)]));
  };

  it('never owns istio-system: no Namespace object; the namespaced objects reference istio-system', () => {
    assert.deepEqual(objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name), []);
    const clusterScoped = ['CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'ValidatingWebhookConfiguration'];
    for (const o of objects.filter((x) => !clusterScoped.includes(x.kind))) {
      assert.equal(o.metadata.namespace, 'istio-system', `${o.kind} ${o.metadata.name}`);
    }
  });

  it('every CRD schema accepts each object of its kind the controller accepts (fixtures, examples, demos) and refuses the others', () => {
    const check = checkers();
    const seen = new Map<string, { accepted: number; refused: number }>();
    for (const { source, raw } of aerakiObjects()) {
      const problems = check.get(raw.kind)!.problems(raw);
      const label = `${source} ${raw.kind} ${raw.metadata?.name}`;
      const accepted = parseConfigObject(raw, PARSE_OPTIONS)?.ok === true;
      if (accepted) assert.deepEqual(problems, [], label);
      else assert.notDeepEqual(problems, [], `${label}: the controller refuses it, the CRD accepts it`);
      const counts = seen.get(raw.kind) ?? { accepted: 0, refused: 0 };
      counts[accepted ? 'accepted' : 'refused']++;
      seen.set(raw.kind, counts);
    }
    const accepted = (kind: string) => seen.get(kind)?.accepted ?? 0;
    assert.ok(accepted('MetaRouter') >= 50 && accepted('ApplicationProtocol') >= 5, JSON.stringify([...seen]));
    assert.ok(accepted('DubboAuthorizationPolicy') >= 10 && accepted('RedisService') >= 15, JSON.stringify([...seen]));
    assert.ok(accepted('RedisDestination') >= 5, JSON.stringify([...seen]));
    assert.equal([...seen.values()].reduce((n, c) => n + c.refused, 0), 9, JSON.stringify([...seen]));
  });

  it('CRD schemas refuse invalid objects, saying why', () => {
    const check = checkers();
    const host = 'svc.ns.svc.cluster.local';
    const dest = (subset: string, weight?: number) => ({ destination: { host, subset }, ...(weight === undefined ? {} : { weight }) });
    const of = (apiVersion: string, kind: string, spec: object) => ({ apiVersion, kind, metadata: { name: 'x', namespace: 'ns' }, spec });
    const router = (spec: object) => of('metaprotocol.aeraki.io/v1alpha1', 'MetaRouter', { hosts: [host], ...spec });
    const withRoute = (extra: object) => router({ routes: [{ name: 'r', route: [dest('v1')], ...extra }] });
    const redis = (spec: object) => of('redis.aeraki.io/v1alpha1', 'RedisService', { host: [host], ...spec });
    const bucket = { maxTokens: 1, tokensPerFill: 1, fillInterval: '1s' };
    assert.deepEqual(check.get('MetaRouter')!.problems(withRoute({ mirror: { host }, mirrorPercentage: { value: 100 } })), []);
    const invalid: [string, Record<string, any>, string][] = [
      ['weights 90+60', router({ routes: [{ route: [dest('v1', 90), dest('v2', 60)] }] }), 'weights of several destinations must sum to 100'],
      ['a weight above 100', router({ routes: [{ route: [dest('v1', 101)] }] }), 'must be <= 100'],
      ['port 0', router({ routes: [{ route: [{ destination: { host, port: { number: 0 } } }] }] }), 'must be >= 1'],
      ['two hosts', withRoute({ name: 'r' }), 'must NOT have more than 1 items'],
      ['an all-numeric last label', withRoute({ mirror: { host: '10.0.0.1' } }), 'must not be all-numeric'],
      ['a subset that is no DNS label', router({ routes: [{ route: [dest('v_1')] }] }), 'must match pattern'],
      ['mirrorPercentage without mirror', withRoute({ mirrorPercentage: { value: 50 } }), 'mirrorPercentage requires mirror'],
      ['mirrorPercentage 0', withRoute({ mirror: { host }, mirrorPercentage: { value: 0 } }), 'must be > 0'],
      ['an empty mutation key', withRoute({ requestMutation: [{ key: '', value: 'v' }] }), 'must NOT have fewer than 1 characters'],
      ['exact and prefix in one attribute', withRoute({ match: { attributes: { method: { exact: 'a', prefix: 'b' } } } }), 'must NOT have more than 1 properties'],
      ['an unknown field', withRoute({ timeout: '1s' }), 'must NOT have additional properties'],
      ['"~" with a namespace in exportTo', router({ exportTo: ['~', 'ns'], localRateLimit: { tokenBucket: bucket } }), '"~" cannot be combined'],
      ['a duplicate exportTo entry', router({ exportTo: ['ns', 'ns'], localRateLimit: { tokenBucket: bucket } }), 'duplicate items'],
      ['no routes and no rate limit', router({ routes: [] }), 'at least one of routes, localRateLimit and globalRateLimit'],
      ['an empty localRateLimit', router({ localRateLimit: {} }), 'tokenBucket or conditions is required'],
      ['a token bucket without fillInterval', router({ localRateLimit: { tokenBucket: { maxTokens: 1, tokensPerFill: 1 } } }), "required property 'fillInterval'"],
      ['maxTokens 0', router({ localRateLimit: { tokenBucket: { ...bucket, maxTokens: 0 } } }), 'must be >= 1'],
      ['a global rate limit without descriptors', router({ globalRateLimit: { domain: 'd', rateLimitService: 's', descriptors: [] } }), 'must NOT have fewer than 1 items'],
      ['an unknown action', of('dubbo.aeraki.io/v1alpha1', 'DubboAuthorizationPolicy', { action: 'AUDIT' }), 'must be equal to one of the allowed values'],
      ['an unknown read policy', redis({ settings: { readPolicy: 'NEAREST' } }), 'must be equal to one of the allowed values'],
      ['auth from a Secret and in plain text', redis({ settings: { auth: { secret: { name: 's' }, plain: { password: 'p' } } } }), 'must NOT have more than 1 properties'],
      ['a duration that is none', redis({ settings: { opTimeout: 'fast' } }), 'must match pattern'],
      ['an unknown Redis mode', of('redis.aeraki.io/v1alpha1', 'RedisDestination', { host, trafficPolicy: { connectionPool: { redis: { mode: 'SENTINEL' } } } }), 'must be equal to one of the allowed values'],
      ['an empty codec', of('metaprotocol.aeraki.io/v1alpha1', 'ApplicationProtocol', { protocol: 'p', codec: '' }), 'must NOT have fewer than 1 characters'],
    ];
    const twoHosts = invalid.find(([name]) => name === 'two hosts')![1];
    twoHosts.spec.hosts = [host, 'other.ns.svc.cluster.local'];
    for (const [name, object, why] of invalid) {
      const problems = check.get(object.kind)!.problems(object).join('; ');
      assert.ok(problems.includes(why), `${name}: expected "${why}", got "${problems}"`);
    }
  });

  it('every CEL rule has its JavaScript twin, and every twin its rule', () => {
    const rules = new Set(crds.flatMap((c) => celRules(c.spec.versions[0].schema.openAPIV3Schema).map(([, rule]) => rule)));
    assert.deepEqual([...rules].sort(), Object.keys(CEL_TWINS).sort());
  });

  it('every CRD has the status subresource, a metav1.Condition status and the Accepted and Age columns', () => {
    const statuses = crds.map((crd) => {
      const version = crd.spec.versions[0];
      assert.deepEqual(version.subresources, { status: {} }, crd.metadata.name);
      const columns = version.additionalPrinterColumns.map((c: Record<string, string>) => [c.name, c.type, c.jsonPath]);
      assert.deepEqual(columns.slice(-2), [
        ['Accepted', 'string', '.status.conditions[?(@.type=="Accepted")].status'],
        ['Age', 'date', '.metadata.creationTimestamp'],
      ]);
      return version.schema.openAPIV3Schema.properties.status;
    });
    for (const s of statuses) assert.deepEqual(s, statuses[0]);
    const { conditions, observedGeneration } = statuses[0].properties;
    assert.equal(observedGeneration.type, 'integer');
    assert.equal(conditions['x-kubernetes-list-type'], 'map');
    assert.deepEqual(conditions['x-kubernetes-list-map-keys'], ['type']);
    assert.deepEqual([...conditions.items.required].sort(), ['lastTransitionTime', 'message', 'reason', 'status', 'type']);
    const check = checkers().get('MetaRouter')!;
    const accepted = { type: 'Accepted', status: 'True', reason: 'Accepted', message: '', lastTransitionTime: '2025-01-02T03:04:05Z', observedGeneration: 2 };
    const router = (condition: object) => ({
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'MetaRouter',
      metadata: { name: 'x', namespace: 'ns' },
      spec: { hosts: ['svc.ns'], routes: [{ route: [{ destination: { host: 'svc.ns' } }] }] },
      status: { observedGeneration: 2, conditions: [condition] },
    });
    assert.deepEqual(check.problems(router(accepted)), []);
    assert.notDeepEqual(check.problems(router({ ...accepted, status: 'Yes' })), []);
    assert.notDeepEqual(check.problems(router({ ...accepted, reason: '' })), []);
  });

  it('every generated EnvoyFilter and VirtualService validates against Istio schemas', () => {
    let checked = 0;
    for (const input of loadCorpus()) {
      const store = new ConfigStore({ rootNamespace: 'istio-system' });
      fillStore(store, parseRawObjects(input.raws, 'istio-system', [], PARSE_OPTIONS));
      for (const o of generateAll(store, createGenerators(), { namespaceScope: false }).objects) {
        if (o.kind === 'EnvoyFilter') new EnvoyFilter(o as never).validate();
        else new VirtualService(o).validate();
        checked++;
      }
    }
    assert.ok(checked > 30);
  });
});
