// Checking objects against the CRD schemas offline: the OpenAPI v3 schema as ajv reads it (what the API server checks
// structurally, with kubectl's strict field validation), and the CEL rules (x-kubernetes-validations), which no
// installable library here evaluates, through a JavaScript twin of each rule written beside its exact text. A rule
// without a twin fails the suite, so a changed rule must be re-read and its twin changed with it.
import { Ajv, type ValidateFunction } from 'ajv';

type Schema = Record<string, any>;

/** Each CEL rule of manifests/crd-*.yaml, by its exact text, and what it means in JavaScript. */
export const CEL_TWINS: Readonly<Record<string, (self: any) => boolean>> = {
  // MetaRouter spec: §7.3 rule 2.
  '(has(self.routes) && size(self.routes) > 0) || has(self.localRateLimit) || has(self.globalRateLimit)': (s) =>
    (s.routes != null && s.routes.length > 0) || s.localRateLimit != null || s.globalRateLimit != null,
  // Host names (hosts[], destination and mirror hosts): §7.3 rules 1 and 6; CEL matches() searches like RegExp.test.
  "!self.matches('(^|[.])[0-9]+$')": (s: string) => !/(^|[.])[0-9]+$/.test(s),
  // exportTo: §7.3 rule 8 (duplicates: x-kubernetes-list-type set).
  "!('~' in self) || size(self) == 1": (s: string[]) => !s.includes('~') || s.length === 1,
  // routes[]: §7.3 rule 5.
  'has(self.mirror) || !has(self.mirrorPercentage)': (s) => s.mirror != null || s.mirrorPercentage == null,
  // routes[].route: §7.3 rule 7.
  'size(self) <= 1 || self.map(d, has(d.weight) ? d.weight : 0).sum() == 100': (s: { weight?: number }[]) =>
    s.length <= 1 || s.reduce((sum, d) => sum + (d.weight ?? 0), 0) === 100,
  // localRateLimit: §7.3 rule 11.
  'has(self.tokenBucket) || (has(self.conditions) && size(self.conditions) > 0)': (s) =>
    s.tokenBucket != null || (s.conditions != null && s.conditions.length > 0),
};

/**
 * The schema as JSON Schema for ajv: OpenAPI's boolean exclusiveMinimum/exclusiveMaximum become numbers, a
 * `set` list refuses duplicates, and every object with properties refuses other fields (kubectl's strict field
 * validation; maps use additionalProperties and stay open).
 */
export function toJsonSchema(node: Schema): Schema {
  const out: Schema = { ...node };
  if (node.exclusiveMinimum === true) out.exclusiveMinimum = node.minimum;
  if (node.exclusiveMaximum === true) out.exclusiveMaximum = node.maximum;
  if (node.exclusiveMinimum === true) delete out.minimum;
  if (node.exclusiveMaximum === true) delete out.maximum;
  if (node['x-kubernetes-list-type'] === 'set') out.uniqueItems = true;
  if (node.properties) {
    out.properties = Object.fromEntries(Object.entries<Schema>(node.properties).map(([k, v]) => [k, toJsonSchema(v)]));
    if (!node['x-kubernetes-preserve-unknown-fields']) out.additionalProperties = false;
  }
  if (node.items) out.items = toJsonSchema(node.items);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    out.additionalProperties = toJsonSchema(node.additionalProperties);
  }
  return out;
}

function hasType(node: Schema, value: unknown): boolean {
  if (node.type === 'array') return Array.isArray(value);
  if (node.type === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value);
  return typeof value === node.type;
}

/** Every CEL rule of the schema, as [path, rule]. */
export function celRules(node: Schema, path = ''): [string, string][] {
  const own: [string, string][] = (node['x-kubernetes-validations'] ?? []).map((v: { rule: string }) => [path, v.rule]);
  return [
    ...own,
    ...Object.entries<Schema>(node.properties ?? {}).flatMap(([k, v]) => celRules(v, `${path}.${k}`)),
    ...(node.items ? celRules(node.items, `${path}[]`) : []),
    ...(typeof node.additionalProperties === 'object' ? celRules(node.additionalProperties, `${path}{}`) : []),
  ];
}

/** The messages of the CEL rules `value` breaks, evaluated through their twins where the value has the node's type. */
export function celFailures(node: Schema, value: unknown, path = ''): string[] {
  if (value === null || value === undefined || !hasType(node, value)) return [];
  const out: string[] = [];
  for (const v of (node['x-kubernetes-validations'] ?? []) as { rule: string; message: string }[]) {
    const twin = CEL_TWINS[v.rule];
    if (!twin) throw new Error(`no twin for the CEL rule ${v.rule}`);
    if (!twin(value)) out.push(`${path}: ${v.message}`);
  }
  const record = value as Record<string, unknown>;
  if (node.type === 'object') {
    for (const [k, v] of Object.entries(record)) {
      const child = node.properties?.[k] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
      if (child) out.push(...celFailures(child, v, `${path}.${k}`));
    }
  }
  if (node.type === 'array' && node.items) {
    (value as unknown[]).forEach((v, i) => out.push(...celFailures(node.items, v, `${path}[${i}]`)));
  }
  return out;
}

/** Checks objects of one CRD: the structural schema by ajv, then the CEL rules. */
export class CrdChecker {
  private readonly validate: ValidateFunction;
  constructor(
    private readonly ajv: Ajv,
    private readonly schema: Schema,
  ) {
    const root = toJsonSchema(schema);
    // apiVersion, kind and metadata are implicit in a CRD's schema.
    const implicit = { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' } };
    this.validate = ajv.compile({ ...root, properties: { ...implicit, ...root.properties } });
  }

  /** Why the API server (with strict field validation) would refuse `object`; [] when it accepts it. */
  problems(object: unknown): string[] {
    const structural = this.validate(object) ? [] : [this.ajv.errorsText(this.validate.errors)];
    return [...structural, ...celFailures(this.schema, object)];
  }
}

export function newAjv(): Ajv {
  return new Ajv({ strict: false, allErrors: true });
}
