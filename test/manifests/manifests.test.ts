// Offline validation of everything users apply: `kubectl kustomize manifests/` must build, every object must
// validate against the Kubernetes schemas (kubernetes-models), the CRD schemas must be structural and accept every
// MetaRouter/ApplicationProtocol of the fixtures, and every EnvoyFilter the generators write must validate against
// Istio's EnvoyFilter schema (@kubernetes-models/istio).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { parseAllDocuments } from 'yaml';
import { EnvoyFilter } from '@kubernetes-models/istio/networking.istio.io/v1alpha3/EnvoyFilter';
import { VirtualService } from '@kubernetes-models/istio/networking.istio.io/v1alpha3/VirtualService';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ValidatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration';
import { fillStore, parseRawObjects } from '../../src/controller/file-source.ts';
import {
  AERAKI_RESOURCES,
  istioResources,
  SERVICE_RESOURCE,
} from '../../src/controller/kube/resources.ts';
import { parseConfigObject } from '../../src/model/parse.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { loadCorpus } from '../conformance/corpus.ts';

const ROOT = resolve(import.meta.dirname, '../..');

type Model = new (data: any) => { validate(): void };
const MODELS: Record<string, Model> = {
  Namespace,
  ServiceAccount,
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
  Service,
  Deployment,
  CustomResourceDefinition,
  ValidatingWebhookConfiguration,
};

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

  it('the validating webhook: every Aeraki kind, failurePolicy Ignore, Service 443 -> the container port 15017', () => {
    const hook = objects.find((o) => o.kind === 'ValidatingWebhookConfiguration')!.webhooks[0];
    assert.equal(hook.failurePolicy, 'Ignore');
    assert.deepEqual(hook.clientConfig.service, { name: 'aeraki', namespace: 'istio-system', path: '/validate', port: 443 });
    const resources = hook.rules.flatMap((r: { resources: string[] }) => r.resources).sort();
    assert.deepEqual(resources, ['applicationprotocols', 'dubboauthorizationpolicies', 'metarouters', 'redisdestinations', 'redisservices']);
    const port = objects.find((o) => o.kind === 'Service')!.spec.ports.find((p: { port: number }) => p.port === 443);
    const c = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0];
    assert.equal(c.ports.find((p: { name: string }) => p.name === port.targetPort).containerPort, 15017);
    assert.ok(c.args.includes('--webhook-address=:15017'));
  });

  it('the cert-manager component: Issuer, Certificate of the serving Secret, CA injected into the webhook', () => {
    const overlay = mkdtempSync(resolve(tmpdir(), 'aeraki-kustomize-'));
    try {
      // kustomize takes relative paths only.
      const rel = (p: string) => relative(overlay, resolve(ROOT, p));
      const body = `resources: [${rel('manifests')}]\ncomponents: [${rel('manifests/cert-manager')}]\n`;
      writeFileSync(resolve(overlay, 'kustomization.yaml'), body);
      const built = kustomize(overlay);
      const cert = built.find((o) => o.kind === 'Certificate')!;
      assert.equal(cert.spec.secretName, 'aeraki-serving-cert');
      assert.ok(cert.spec.dnsNames.includes('aeraki.istio-system.svc'));
      assert.ok(built.some((o) => o.kind === 'Issuer' && o.metadata.name === cert.spec.issuerRef.name));
      const hook = built.find((o) => o.kind === 'ValidatingWebhookConfiguration')!;
      assert.equal(hook.metadata.annotations['cert-manager.io/inject-ca-from'], 'istio-system/aeraki-serving-cert');
    } finally {
      rmSync(overlay, { recursive: true, force: true });
    }
  });

  it('reads Secrets (Redis auth) without writing them, and runs non-root on a read-only root filesystem', () => {
    for (const o of objects.filter((x) => x.kind === 'ClusterRole' || x.kind === 'Role')) {
      for (const rule of o.rules) {
        assert.ok(!rule.resources.includes('*'));
        if (rule.resources.includes('secrets')) assert.deepEqual(rule.verbs, ['get', 'list', 'watch']);
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
    const read = [...AERAKI_RESOURCES, ...istioResources('v1'), SERVICE_RESOURCE];
    for (const r of read) {
      for (const verb of ['list', 'watch']) assert.ok(grants(r.group, r.plural, verb), `${verb} ${r.plural}`);
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

  it('the DubboAuthorizationPolicy CRD (with strict field validation) and the parser agree on every fixture policy', () => {
    // kubectl's strict field validation refuses fields the structural schema does not define: additionalProperties false.
    const strict = (node: Record<string, any>): Record<string, any> => {
      const out: Record<string, any> = { ...node };
      if (node.properties) {
        out.properties = Object.fromEntries(Object.entries<Record<string, any>>(node.properties).map(([k, v]) => [k, strict(v)]));
        out.additionalProperties = false;
      }
      if (node.items) out.items = strict(node.items);
      return out;
    };
    const root = schemaOf('DubboAuthorizationPolicy');
    const validate = new Ajv({ strict: false }).compile({ ...root, properties: { ...root.properties, spec: strict(root.properties.spec) } });
    const seen = { accepted: 0, refused: 0 };
    for (const input of loadCorpus()) {
      for (const raw of input.raws as Record<string, any>[]) {
        if (raw.kind !== 'DubboAuthorizationPolicy') continue;
        const parsed = parseConfigObject(raw);
        const accepted = validate(raw);
        assert.equal(accepted, parsed?.ok, `${input.name} ${raw.metadata?.name}: CRD ${accepted}, parser ${parsed?.ok}`);
        seen[accepted ? 'accepted' : 'refused']++;
      }
    }
    assert.ok(seen.accepted >= 8 && seen.refused >= 2, JSON.stringify(seen));
  });

  it('the Redis CRDs define the fields the parser reads', () => {
    const rs = schemaOf('RedisService').properties.spec.properties;
    for (const f of ['host', 'settings', 'redis', 'faults']) assert.ok(rs[f], `RedisService ${f}`);
    const rd = schemaOf('RedisDestination').properties.spec.properties;
    for (const f of ['host', 'trafficPolicy']) assert.ok(rd[f], `RedisDestination ${f}`);
  });

  it('CRD schemas accept every valid RedisService and RedisDestination of the fixtures, and refuse bad enums', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validators = { RedisService: ajv.compile(schemaOf('RedisService')), RedisDestination: ajv.compile(schemaOf('RedisDestination')) };
    let checked = 0;
    for (const input of loadCorpus()) {
      for (const raw of input.raws as Record<string, any>[]) {
        const validate = validators[raw.kind as keyof typeof validators];
        if (!validate || !parseConfigObject(raw)?.ok) continue;
        assert.ok(validate(raw), `${input.name} ${raw.kind} ${raw.metadata?.name}: ${ajv.errorsText(validate.errors)}`);
        checked++;
      }
    }
    assert.ok(checked > 10);
    const bad = { apiVersion: 'redis.aeraki.io/v1alpha1', kind: 'RedisService', metadata: { name: 'x' }, spec: { host: ['a'], settings: { readPolicy: 'NEAREST' } } };
    assert.equal(validators.RedisService(bad), false);
  });

  it('CRD schemas accept every MetaRouter and ApplicationProtocol of the fixtures', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validators = { MetaRouter: ajv.compile(schemaOf('MetaRouter')), ApplicationProtocol: ajv.compile(schemaOf('ApplicationProtocol')) };
    let checked = 0;
    for (const input of loadCorpus()) {
      for (const raw of input.raws as Record<string, any>[]) {
        const validate = validators[raw.kind as keyof typeof validators];
        if (!validate) continue;
        assert.ok(validate(raw), `${input.name} ${raw.kind} ${raw.metadata?.name}: ${ajv.errorsText(validate.errors)}`);
        checked++;
      }
    }
    assert.ok(checked > 10);
  });

  it('every generated EnvoyFilter and VirtualService validates against Istio schemas', () => {
    let checked = 0;
    for (const input of loadCorpus()) {
      const store = new ConfigStore({ rootNamespace: 'istio-system' });
      fillStore(store, parseRawObjects(input.raws, 'istio-system'));
      for (const o of generateAll(store, createGenerators(), { namespaceScope: false }).objects) {
        if (o.kind === 'EnvoyFilter') new EnvoyFilter(o as never).validate();
        else new VirtualService(o).validate();
        checked++;
      }
    }
    assert.ok(checked > 30);
  });
});
