// Label and field selectors, as in k8s.io/apimachinery/pkg/labels and fields.
// https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors
import { badRequest } from './status.ts';
import type { KubeObject } from './types.ts';

type Requirement =
  | { key: string; op: 'exists' | '!exists' }
  | { key: string; op: '=' | '!='; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] };

export type Selector = (obj: KubeObject) => boolean;

/** Splits on commas outside parentheses. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}

function parseRequirement(text: string): Requirement {
  const set = /^([^\s!=()]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text);
  if (set) {
    const values = set[3]!.split(',').map((v) => v.trim());
    return { key: set[1]!, op: set[2] as 'in' | 'notin', values };
  }
  const eq = /^([^\s!=]+)\s*(==|=|!=)\s*([^\s,]*)$/.exec(text);
  if (eq) return { key: eq[1]!, op: eq[2] === '!=' ? '!=' : '=', value: eq[3]! };
  const not = /^!\s*([^\s!=()]+)$/.exec(text);
  if (not) return { key: not[1]!, op: '!exists' };
  if (/^[^\s!=()]+$/.test(text)) return { key: text, op: 'exists' };
  throw badRequest(`unable to parse requirement: ${text}`);
}

function matches(req: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.key);
  const v = labels[req.key];
  switch (req.op) {
    case 'exists':
      return has;
    case '!exists':
      return !has;
    case '=':
      return has && v === req.value;
    case '!=':
      return !has || v !== req.value;
    case 'in':
      return has && req.values.includes(v!);
    case 'notin':
      return !has || !req.values.includes(v!);
  }
}

/** The selector of an absent or empty selector parameter: matches everything. */
export const MATCH_ALL: Selector = () => true;

/** Parses a label selector (`a=b,c!=d,e in (f,g),h notin (i),j,!k`); throws ApiError 400 when malformed. */
export function parseLabelSelector(text: string | undefined): Selector {
  if (!text) return MATCH_ALL;
  const reqs = splitTop(text).map(parseRequirement);
  return (obj) => reqs.every((r) => matches(r, obj.metadata.labels ?? {}));
}

const FIELDS: Record<string, (o: KubeObject) => string> = {
  'metadata.name': (o) => o.metadata.name ?? '',
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
  // Served for Secrets only by a real server; the fake offers it on every kind.
  type: (o) => {
    const t = (o as { type?: unknown }).type;
    return typeof t === 'string' ? t : '';
  },
};

/** Parses a field selector over metadata.name / metadata.namespace / type (`=`, `==`, `!=`). */
export function parseFieldSelector(text: string | undefined): Selector {
  if (!text) return MATCH_ALL;
  const reqs = splitTop(text).map((part) => {
    const m = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const get = FIELDS[m[1]!];
    if (!get) throw badRequest(`field label not supported: ${m[1]!}`);
    const value = m[3]!.trim();
    const negate = m[2] === '!=';
    return (o: KubeObject) => (get(o) === value) !== negate;
  });
  return (obj) => reqs.every((r) => r(obj));
}
