// What a Prometheus text exposition declares: each metric family's type and the label names its samples carry, with
// a histogram's or summary's _bucket, _sum and _count series resolved to their family.

export interface Family {
  readonly type: string;
  readonly labels: Set<string>;
}

export function families(text: string): Map<string, Family> {
  const out = new Map<string, Family>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) out.set(type[1]!, { type: type[2]!, labels: new Set() });
  }
  for (const line of text.split('\n')) {
    const sample = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? /.exec(line);
    if (!sample) continue;
    const family = familyOf(out, sample[1]!);
    for (const m of (sample[2] ?? '').matchAll(/([A-Za-z_]\w*)="/g)) family?.labels.add(m[1]!);
  }
  return out;
}

/** The family a series name belongs to: itself, or the histogram or summary its suffix names. */
export function familyOf(all: ReadonlyMap<string, Family>, series: string): Family | undefined {
  const own = all.get(series);
  if (own) return own;
  const m = /^(.+)_(bucket|sum|count)$/.exec(series);
  const base = m ? all.get(m[1]!) : undefined;
  if (!base) return undefined;
  return base.type === 'histogram' || (base.type === 'summary' && m![2] !== 'bucket') ? base : undefined;
}
