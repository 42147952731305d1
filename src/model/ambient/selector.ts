/**
 * A Kubernetes label selector (metav1.LabelSelector) and its match, as apimachinery's LabelSelectorAsSelector
 * builds it: absent → matches nothing; `{}` → matches everything; otherwise every `matchLabels` pair and every
 * expression must hold. `In`/`NotIn` need values and `Exists`/`DoesNotExist` none, and an unknown operator is an
 * error there; such a selector matches nothing here. `NotIn` and `DoesNotExist` hold when the key is absent.
 */

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

type Labels = Readonly<Record<string, string>>;

/** True when `labels` hold the requirement; undefined when the requirement is malformed. */
function holds(r: LabelSelectorRequirement, labels: Labels): boolean | undefined {
  const values = r.values ?? [];
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'In':
      return values.length === 0 ? undefined : has && values.includes(labels[r.key] ?? '');
    case 'NotIn':
      return values.length === 0 ? undefined : !has || !values.includes(labels[r.key] ?? '');
    case 'Exists':
      return values.length > 0 ? undefined : has;
    case 'DoesNotExist':
      return values.length > 0 ? undefined : !has;
    default:
      return undefined;
  }
}

export function selectorMatches(selector: LabelSelector | undefined, labels: Labels): boolean {
  if (selector === undefined) return false;
  const matchLabels = selector.matchLabels ?? {};
  for (const [k, v] of Object.entries(matchLabels)) {
    if (!Object.hasOwn(labels, k) || labels[k] !== v) return false;
  }
  for (const r of selector.matchExpressions ?? []) {
    if (holds(r, labels) !== true) return false;
  }
  return true;
}
