/**
 * A DubboAuthorizationPolicy as the debug page shows it (model/settings.ts): its action and each rule's sources and
 * operations, on every native Dubbo service of its namespace, or of every namespace from the root namespace (D15).
 */
import type { ObjectSettings, SettingsContext } from '../../model/settings.ts';
import type { DubboAuthorizationPolicy, DubboOperation, DubboSource } from './types.ts';

/** The protocol its policies apply to: the one the plugin's generator handles (index.ts `protocols`). */
const DUBBO_PROTOCOL = 'dubbo';

/** `key a, b` for each non-empty list, joined by `; `. */
function lists(fields: Readonly<Record<string, readonly string[]>>): string {
  return Object.entries(fields)
    .filter(([, v]) => v.length > 0)
    .map(([k, v]) => `${k} ${v.join(', ')}`)
    .join('; ');
}

const sourceText = (s: DubboSource): string => lists({ ...s }) || 'any caller';
const operationText = (o: DubboOperation): string => lists({ ...o }) || 'any call';

export function describeDubboAuthorizationPolicy(
  o: DubboAuthorizationPolicy,
  ctx: SettingsContext,
): ObjectSettings {
  const ns = o.metadata.namespace;
  const rules = o.spec.rules.map((r, i) => {
    const from = r.from.length > 0 ? r.from.map((f) => sourceText(f.source)).join(' | ') : 'any caller';
    const to = r.to.length > 0 ? r.to.map((t) => operationText(t.operation)).join(' | ') : 'any call';
    return { label: `rule ${i + 1}`, value: `from ${from} → ${to}` };
  });
  return {
    appliesTo: { protocol: DUBBO_PROTOCOL, namespace: ns === ctx.rootNamespace ? '*' : ns },
    lines: [
      { label: 'action', value: o.spec.action },
      ...(rules.length > 0 ? rules : [{ label: 'rules', value: 'none' }]),
    ],
  };
}
