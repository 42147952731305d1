/**
 * What the offline analyzers share: the services of an input (ServiceEntries and converted Kubernetes Services,
 * valid ones only) with their ports, messages, and analyzers that report issues the controller's own checks found
 * (so analyze says exactly what `render` finds, under a stable code).
 */
import type { ConfigObject, ServiceEntry, ServicePort } from '../../model/objects.ts';
import { refOf, severityOf, type ConfigIssue, type ObjectRef } from '../../model/result.ts';
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer } from '../types.ts';

export function message(code: AnalysisCode, ref: ObjectRef, path: string, text: string): AnalysisMessage {
  return { code, ref, path, message: text };
}

/** The ServiceEntries and Services of the input, in input order. */
export function servicesOf(input: AnalysisInput): readonly ServiceEntry[] {
  return input.objects.objects.filter(
    (o: ConfigObject): o is ServiceEntry => o.kind === 'ServiceEntry' || o.kind === 'Service',
  );
}

export interface PortOf {
  readonly service: ServiceEntry;
  readonly ref: ObjectRef;
  readonly port: ServicePort;
  /** `spec.ports[<i>].name` */
  readonly path: string;
}

/** Every port of every service, in input then port order. */
export function portsOf(input: AnalysisInput): PortOf[] {
  return servicesOf(input).flatMap((service) =>
    service.spec.ports.map((port, i) => ({
      service,
      ref: refOf(service),
      port,
      path: `spec.ports[${i}].name`,
    })),
  );
}

/** The protocols some generator handles (the input's, else every protocol port names can select). */
export function handledProtocols(input: AnalysisInput): ReadonlySet<string> {
  return new Set(input.handledProtocols ?? input.detectedProtocols);
}

/** The same object and field: the identity of a finding. */
export function sameSpot(
  a: { ref: ObjectRef; path: string },
  ref: ObjectRef | undefined,
  path = '',
): boolean {
  return (
    ref !== undefined &&
    a.ref.kind === ref.kind &&
    a.ref.namespace === ref.namespace &&
    a.ref.name === ref.name &&
    a.path === path
  );
}

/**
 * A memo of one computation per input (analyze and covers run over the same input): inputs are immutable values,
 * so a WeakMap keyed by the input object is enough.
 */
export function perInput<T>(compute: (input: AnalysisInput) => T): (input: AnalysisInput) => T {
  const memo = new WeakMap<AnalysisInput, T>();
  return (input) => {
    const known = memo.get(input);
    if (known !== undefined) return known;
    const value = compute(input);
    memo.set(input, value);
    return value;
  };
}

/**
 * An analyzer of the issues the controller's checks report (generation, conflicts): each issue `select` maps to
 * one of `codes` (or to `null`: covered, said by no message) becomes a message with the issue's own text.
 */
export function issueAnalyzer(
  codes: readonly AnalysisCode[],
  select: (issue: ConfigIssue, input: AnalysisInput) => AnalysisCode | null | undefined,
): Analyzer {
  return {
    codes,
    analyze: (input) =>
      input.issues.flatMap((i) => {
        const code = select(i, input);
        return code ? [message(code, i.ref, i.path, i.message)] : [];
      }),
    covers: (i, input) => select(i, input) !== undefined,
  };
}

/** True for an issue the controller gives `severity` (not the admission severity). */
export function controllerSeverity(i: ConfigIssue, severity: 'error' | 'warning'): boolean {
  return severityOf(i) === severity;
}
