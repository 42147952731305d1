/**
 * The catch-all codes, so analyze reports at least what `aeraki validate` reports: every issue of the input that
 * no more specific analyzer covers (Analyzer.covers), by the severities admission and the controller give it
 * (model/result.ts):
 * - AER0009 AdmissionWouldRefuse: admission refuses it, the controller renders it with a warning (`hygiene`);
 * - AER0010 InvalidConfig: the controller refuses it (the object, or the part named, is not honoured);
 * - AER0011 ConfigWarning: any other warning.
 */
import { admissionOnly, severityOf, type ConfigIssue } from '../../model/result.ts';
import type { AnalysisCode, AnalysisInput, Analyzer } from '../types.ts';
import { message } from './shared.ts';
import { ORDERS_ENTRY_HEAD } from '../examples.ts';

export const ADMISSION_WOULD_REFUSE: AnalysisCode = {
  code: 'AER0009',
  name: 'AdmissionWouldRefuse',
  severity: 'warning',
  why: "The object breaks a rule of admission (Aeraki's or Istio's webhook, `aeraki validate`) that the controller tolerates: it works here, but a cluster with the webhook refuses it.",
  fix: "Correct the field the message names (README's `aeraki validate` table lists each rule).",
  live: false,
  example: `${ORDERS_ENTRY_HEAD}  ports: [{number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP}]
---
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: orders, namespace: shop}
spec:
  hosts: [orders.shop.svc.cluster.local]
  routes:
  - route: [{destination: {host: orders.shop.svc.cluster.local}}]
    mirrorPercentage: {value: 50}
`,
};

export const INVALID_CONFIG: AnalysisCode = {
  code: 'AER0010',
  name: 'InvalidConfig',
  severity: 'error',
  why: 'The controller refuses the object or the part named: it is not honoured (a running controller keeps its last valid version).',
  fix: 'Correct the field the message names; `aeraki validate` reports the same problem.',
  live: false,
  example: `${ORDERS_ENTRY_HEAD}  ports: [{number: 20880, name: tcp-metaprotocol, protocol: TCP}]
`,
};

export const CONFIG_WARNING: AnalysisCode = {
  code: 'AER0011',
  name: 'ConfigWarning',
  severity: 'warning',
  why: 'The output is what was asked for, but probably not what was meant (a protocol recognised but not handled, a rule that changes nothing).',
  fix: 'Read the message; correct the field it names or ignore it if the behaviour is intended.',
  live: false,
  example: `${ORDERS_ENTRY_HEAD}  ports:
  - {number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP}
  - {number: 27017, name: tcp-mongo, protocol: TCP}
`,
};

const CATCH_ALL = [ADMISSION_WOULD_REFUSE, INVALID_CONFIG, CONFIG_WARNING];

function codeOf(i: ConfigIssue): AnalysisCode {
  if (admissionOnly(i)) return ADMISSION_WOULD_REFUSE;
  return severityOf(i) === 'error' ? INVALID_CONFIG : CONFIG_WARNING;
}

/** The catch-all analyzer over the issues none of `specific` covers. */
export function configIssuesAnalyzer(specific: readonly Analyzer[]): Analyzer {
  const covered = (i: ConfigIssue, input: AnalysisInput): boolean =>
    specific.some((a) => a.covers?.(i, input) === true);
  return {
    codes: CATCH_ALL,
    analyze: (input) =>
      input.issues.filter((i) => !covered(i, input)).map((i) => message(codeOf(i), i.ref, i.path, i.message)),
  };
}
