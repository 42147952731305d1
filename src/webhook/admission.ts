/**
 * One AdmissionReview in, its answer out (pure; the HTTP side is server.ts). As Aeraki's validation server
 * (spec aeraki-periphery §7.2): the answer is in the request's version (`admission.k8s.io/v1` or `v1beta1`) and
 * carries the request's uid; operations other than CREATE and UPDATE are allowed; a kind that is not one of the
 * Aeraki CRDs is denied "unrecognized type"; top-level keys other than apiVersion, kind, metadata, spec and
 * status are denied; otherwise the object is validated and any error denies it, while warnings become the
 * admission `warnings` the API server shows to `kubectl`.
 * https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#response
 */
import { apiVersionOf, type KindSpec } from '../model/kinds.ts';
import { formatIssue, severityOf, type ConfigIssue } from '../model/result.ts';
import { isPlainObject } from '../util/json.ts';

/** Validates one object (metadata.namespace filled from the request when absent); issues of any object count. */
export type ObjectValidator = (object: Readonly<Record<string, unknown>>) => readonly ConfigIssue[];

/** The core's kinds this webhook validates, as `group/version/Kind`. */
const CORE_VALIDATED_KINDS: readonly string[] = [
  'metaprotocol.aeraki.io/v1alpha1/MetaRouter',
  'metaprotocol.aeraki.io/v1alpha1/ApplicationProtocol',
];

/** The kinds this webhook validates, as `group/version/Kind`: the core's and the plugins' (`kinds`). */
export function validatedKinds(kinds: readonly KindSpec[]): ReadonlySet<string> {
  return new Set([...CORE_VALIDATED_KINDS, ...kinds.map((k) => `${apiVersionOf(k)}/${k.kind}`)]);
}

const REVIEW_VERSIONS: ReadonlySet<string> = new Set(['admission.k8s.io/v1', 'admission.k8s.io/v1beta1']);
const TOP_LEVEL_KEYS: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata', 'spec', 'status']);

export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: { readonly status: 'Failure'; readonly code: number; readonly message: string };
  readonly warnings?: readonly string[];
}

/** The outcome of one request body: an AdmissionReview to send (200), or why the body is not one (400). */
export type ReviewOutcome =
  | { readonly ok: true; readonly review: Record<string, unknown>; readonly response: AdmissionResponse }
  | { readonly ok: false; readonly message: string };

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Answers a decoded AdmissionReview body; `validated` are the kinds validated (validatedKinds), others denied. */
export function answerReview(
  body: unknown,
  validate: ObjectValidator,
  validated: ReadonlySet<string>,
): ReviewOutcome {
  if (!isPlainObject(body) || body['kind'] !== 'AdmissionReview') {
    return { ok: false, message: 'the body is not an AdmissionReview' };
  }
  const apiVersion = str(body['apiVersion']);
  if (!REVIEW_VERSIONS.has(apiVersion)) {
    return { ok: false, message: `unsupported AdmissionReview version "${apiVersion}"` };
  }
  const request = body['request'];
  if (!isPlainObject(request) || str(request['uid']) === '') {
    return { ok: false, message: 'the AdmissionReview has no request with a uid' };
  }
  const response = decide(request, validate, validated);
  return { ok: true, review: { apiVersion, kind: 'AdmissionReview', response }, response };
}

function decide(
  request: Readonly<Record<string, unknown>>,
  validate: ObjectValidator,
  validated: ReadonlySet<string>,
): AdmissionResponse {
  const uid = str(request['uid']);
  const operation = str(request['operation']);
  if (operation !== 'CREATE' && operation !== 'UPDATE') return { uid, allowed: true };
  const gvk = isPlainObject(request['kind']) ? request['kind'] : {};
  const type = `${str(gvk['group'])}/${str(gvk['version'])}/${str(gvk['kind'])}`;
  if (!validated.has(type)) return deny(uid, `unrecognized type ${type}`);
  const object = request['object'];
  if (!isPlainObject(object)) return deny(uid, 'the request has no object');
  const unknown = Object.keys(object).filter((k) => !TOP_LEVEL_KEYS.has(k));
  if (unknown.length > 0) return deny(uid, `unknown top-level field(s): ${unknown.sort().join(', ')}`);
  const issues = validate(withRequestNames(object, request));
  const errors = issues.filter((i) => severityOf(i) === 'error').map(formatIssue);
  const warnings = issues.filter((i) => severityOf(i) === 'warning').map(formatIssue);
  const answer: AdmissionResponse =
    errors.length > 0 ? deny(uid, `configuration is invalid: ${errors.join('; ')}`) : { uid, allowed: true };
  return warnings.length > 0 ? { ...answer, warnings } : answer;
}

/** The object with `metadata.namespace` and `metadata.name` from the request where the object lacks them. */
function withRequestNames(
  object: Readonly<Record<string, unknown>>,
  request: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const metadata = isPlainObject(object['metadata']) ? object['metadata'] : {};
  const filled: Record<string, unknown> = { ...metadata };
  if (str(metadata['namespace']) === '' && str(request['namespace']) !== '') {
    filled['namespace'] = request['namespace'];
  }
  if (str(metadata['name']) === '' && str(request['name']) !== '') filled['name'] = request['name'];
  return { ...object, metadata: filled };
}

function deny(uid: string, message: string): AdmissionResponse {
  return { uid, allowed: false, status: { status: 'Failure', code: 400, message } };
}
