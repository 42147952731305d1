// What a PromQL expression uses, read with a small tokenizer (no PromQL parser is a dependency): the metric names of
// its selectors, the label names each selector matches on, and the label names of by/without/on/ignoring/group_*
// clauses. Function and aggregation names, keywords, strings, numbers, durations and range brackets are skipped.

export interface PromqlSelector {
  readonly metric: string;
  readonly labels: readonly string[];
}

export interface PromqlUses {
  readonly selectors: readonly PromqlSelector[];
  /** Label names of grouping and matching clauses, in order of appearance. */
  readonly grouping: readonly string[];
}

const TOKEN =
  /\s+|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`|\[[^\]]*\]|\d+(?:ms|[smhdwy])(?![\w:])|\d+(?:\.\d+)?(?:e[+-]?\d+)?|[A-Za-z_:][\w:]*|=~|!~|!=|==|>=|<=|[-+*/%^=<>(){},@]/y;
const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
]);
const GROUPING = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'start', 'end']);
const MATCH_OPS = new Set(['=', '!=', '=~', '!~']);

function tokenize(expr: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expr.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(expr);
    if (!m) throw new Error(`cannot tokenize PromQL at ${at}: ${expr.slice(at, at + 20)}`);
    if (m[0].trim() !== '') tokens.push(m[0]);
  }
  return tokens;
}

const isIdent = (t: string | undefined): t is string => t !== undefined && /^[A-Za-z_:][\w:]*$/.test(t);

/** The label names inside `{...}` starting at tokens[open] (a `{`); returns them and the index after `}`. */
function matcherLabels(tokens: readonly string[], open: number): [string[], number] {
  const labels: string[] = [];
  let i = open + 1;
  for (; i < tokens.length && tokens[i] !== '}'; i++) {
    if (isIdent(tokens[i]) && MATCH_OPS.has(tokens[i + 1] ?? '')) labels.push(tokens[i]!);
  }
  return [labels, i + 1];
}

export function promqlUses(expr: string): PromqlUses {
  const tokens = tokenize(expr);
  const selectors: PromqlSelector[] = [];
  const grouping: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (t === '{') {
      const [labels, after] = matcherLabels(tokens, i);
      selectors.push({ metric: '', labels });
      i = after - 1;
      continue;
    }
    if (!isIdent(t)) continue;
    const word = t.toLowerCase();
    if (GROUPING.has(word)) {
      if (next === '(') {
        for (i += 2; i < tokens.length && tokens[i] !== ')'; i++)
          if (isIdent(tokens[i])) grouping.push(tokens[i]!);
      }
      continue;
    }
    if (next === '(' || AGGREGATIONS.has(word) || KEYWORDS.has(word)) continue;
    if (next === '{') {
      const [labels, after] = matcherLabels(tokens, i + 1);
      selectors.push({ metric: t, labels });
      i = after - 1;
    } else {
      selectors.push({ metric: t, labels: [] });
    }
  }
  return { selectors, grouping };
}
