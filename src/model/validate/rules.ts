/**
 * The per-object rules of a valid object, run again over its parsed form (they are pure functions of the spec):
 * what the status planner reports for an object the store holds, such as a rule of admission hygiene it breaks
 * (result.ts hygiene), without the store keeping the issues of every valid object.
 */
import type { KindSpec } from '../kinds.ts';
import type { ConfigObject } from '../objects.ts';
import { refOf, type ConfigIssue, type ObjectRef } from '../result.ts';
import { destinationRuleIssues, serviceEntryIssues } from './istio-entries.ts';
import { virtualServiceIssues } from './istio.ts';
import { applicationProtocolIssues, metaRouterIssues } from './metarouter.ts';

/**
 * The issues the rules of its kind find in `o` (a parsed, valid object): warnings only, in field order. `ref` is
 * the object's ref when the caller holds it already (the parser does); `kinds` are the plugins' kinds, whose own
 * rules (KindSpec.ruleIssues) apply to their objects.
 */
export function ruleIssues(
  o: ConfigObject,
  ref: ObjectRef = refOf(o),
  kinds: readonly KindSpec[] = [],
): readonly ConfigIssue[] {
  switch (o.kind) {
    case 'MetaRouter':
      return metaRouterIssues(o.spec, ref);
    case 'ApplicationProtocol':
      return applicationProtocolIssues(o.spec, ref);
    case 'VirtualService':
      return virtualServiceIssues(o.spec, ref);
    case 'DestinationRule':
      return destinationRuleIssues(o.spec, ref);
    case 'ServiceEntry':
      return serviceEntryIssues(o.spec, ref);
    default:
      return kinds.find((k) => k.kind === o.kind)?.ruleIssues?.(o, ref) ?? [];
  }
}
