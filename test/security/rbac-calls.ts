// RBAC as the API server's authorizer sees requests, for the RBAC-from-behaviour test (rbac.test.ts): a recorded
// request of the fake kube-apiserver becomes an attribute set (verb, group, resource[/subresource], namespace,
// resourceName); a ClusterRole or Role of manifests/ becomes the atoms it grants. Requests without a verb are
// discovery (`/api`, `/apis`, `/apis/<group>/<version>`), allowed to every authenticated user by the default
// `system:discovery` ClusterRole, so they are not the manifests' business.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CHART, COMPONENT_VALUES, helmTemplateSync } from '../charts/render.ts';
import type { RequestRecord } from '../fakes/kube-apiserver/index.ts';
import { layerTools } from '../support/layer-tools.ts';

type Role = { kind: string; metadata: { name: string; namespace?: string }; rules: Rule[] };

/**
 * The ClusterRoles and Roles of `kubectl kustomize manifests/`, or of the install with `components` of manifests/
 * (an overlay in a temporary directory: kustomize takes relative paths only).
 */
export function manifestRoles(components: readonly string[] = []): Role[] {
  const manifests = path.resolve(import.meta.dirname, '../../manifests');
  const overlay = components.length === 0 ? undefined : mkdtempSync(path.join(tmpdir(), 'aeraki-rbac-'));
  try {
    if (overlay !== undefined) {
      const list = components.map((c) => path.relative(overlay, path.join(manifests, c))).join(', ');
      const kustomization = `resources: [${path.relative(overlay, manifests)}]\ncomponents: [${list}]\n`;
      writeFileSync(path.join(overlay, 'kustomization.yaml'), kustomization);
    }
    const out = execFileSync(layerTools().kubectl, ['kustomize', overlay ?? manifests], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    return parseAllDocuments(out)
      .map((d) => d.toJS() as Role)
      .filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role');
  } finally {
    if (overlay !== undefined) rmSync(overlay, { recursive: true, force: true });
  }
}

/**
 * The ClusterRoles and Roles of `helm template charts/aeraki` in istio-system, with the values that turn on the
 * same `components` (test/charts/render.ts).
 */
export function chartRoles(components: readonly string[] = []): Role[] {
  const set = components.map((c) => COMPONENT_VALUES[c]!);
  return helmTemplateSync(CHART, set).filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role') as Role[];
}

/** Both installs' roles: kustomize's manifests/ and the Helm chart, each to be checked on its own. */
export function installRoles(components: readonly string[] = []): [string, Role[]][] {
  return [
    ['manifests/', manifestRoles(components)],
    ['charts/aeraki', chartRoles(components)],
  ];
}

/** The calls among `requests` that no atom of `roles` grants (discovery is granted to everyone). */
export function ungrantedCalls(requests: readonly RequestRecord[], roles: readonly Role[]): string[] {
  const atoms = roles.flatMap(atomsOf);
  const out = new Set<string>();
  for (const q of requests) {
    const a = attributesOf(q);
    if (a && !atoms.some((atom) => allows(atom, a))) out.add(describeAttributes(a));
  }
  return [...out].sort();
}

/** One authorization check, as the authorizer builds it (k8s.io/apiserver RequestInfo). */
export interface Attributes {
  readonly verb: string;
  readonly group: string;
  /** `resource` or `resource/subresource`. */
  readonly resource: string;
  /** '' for a cluster-wide request. */
  readonly namespace: string;
  /** The object named: in the path, or for list and watch a `metadata.name=` field selector; '' for none. */
  readonly name: string;
}

/** The attributes of a recorded request; undefined for discovery. */
export function attributesOf(q: RequestRecord): Attributes | undefined {
  if (q.verb === undefined || q.resource === undefined) return undefined;
  const selected = /^metadata\.name=([^,]+)$/.exec(q.query['fieldSelector'] ?? '')?.[1];
  return {
    verb: q.verb,
    group: q.group ?? '',
    resource: q.subresource ? `${q.resource}/${q.subresource}` : q.resource,
    namespace: q.namespace ?? '',
    name: q.name ?? (q.verb === 'list' || q.verb === 'watch' ? (selected ?? '') : ''),
  };
}

export interface Rule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** A granted atom: one verb on one resource of one group, in one namespace ('' = every), on one name ('' = any). */
export interface Atom {
  readonly role: string;
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
}

/** Every atom of a ClusterRole (namespace '') or a Role (its namespace). */
export function atomsOf(role: {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules: Rule[];
}): Atom[] {
  const namespace = role.kind === 'Role' ? (role.metadata.namespace ?? '') : '';
  const out: Atom[] = [];
  for (const r of role.rules) {
    for (const group of r.apiGroups) {
      for (const resource of r.resources) {
        for (const verb of r.verbs) {
          for (const name of r.resourceNames ?? ['']) {
            out.push({ role: `${role.kind}/${role.metadata.name}`, verb, group, resource, namespace, name });
          }
        }
      }
    }
  }
  return out;
}

/** The atom authorises the request (RBAC: a namespaced role covers its namespace only; names must match). */
export function allows(a: Atom, q: Attributes): boolean {
  return (
    a.verb === q.verb &&
    a.group === q.group &&
    a.resource === q.resource &&
    (a.namespace === '' || a.namespace === q.namespace) &&
    (a.name === '' || a.name === q.name)
  );
}

export const describeAttributes = (q: Attributes): string =>
  `${q.verb} ${q.group || 'core'}/${q.resource}${q.namespace ? ` in ${q.namespace}` : ' (all namespaces)'}${q.name ? ` name ${q.name}` : ''}`;

export const describeAtom = (a: Atom): string =>
  `${a.role}: ${a.verb} ${a.group || 'core'}/${a.resource}${a.namespace ? ` in ${a.namespace}` : ''}${a.name ? ` name ${a.name}` : ''}`;
