// Kubernetes `Status` objects, and the error type the fake throws internally to answer with one.
import type { ResourceType } from './types.ts';

export interface StatusCause {
  type?: string;
  message?: string;
  field?: string;
}

export interface StatusObject {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { name?: string; group?: string; kind?: string; uid?: string; causes?: StatusCause[] };
  code: number;
}

export function failure(
  code: number,
  reason: string,
  message: string,
  details?: StatusObject['details'],
): StatusObject {
  const s: StatusObject = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
  if (details) s.details = details;
  return s;
}

/** Thrown by the store and handlers; the router answers with its Status. */
export class ApiError extends Error {
  readonly status: StatusObject;
  constructor(status: StatusObject) {
    super(status.message ?? status.reason ?? String(status.code));
    this.status = status;
  }
}

/** `envoyfilters.networking.istio.io` or `configmaps`, as the real server names a resource in messages. */
export function qualifiedName(rt: ResourceType): string {
  return rt.group ? `${rt.plural}.${rt.group}` : rt.plural;
}

export function notFound(rt: ResourceType, name: string): ApiError {
  return new ApiError(
    failure(404, 'NotFound', `${qualifiedName(rt)} "${name}" not found`, {
      name,
      group: rt.group,
      kind: rt.plural,
    }),
  );
}

export function alreadyExists(rt: ResourceType, name: string): ApiError {
  return new ApiError(
    failure(409, 'AlreadyExists', `${qualifiedName(rt)} "${name}" already exists`, {
      name,
      group: rt.group,
      kind: rt.plural,
    }),
  );
}

export function conflict(rt: ResourceType, name: string, why?: string): ApiError {
  const message =
    why ??
    `Operation cannot be fulfilled on ${qualifiedName(rt)} "${name}": the object has been modified; ` +
      'please apply your changes to the latest version and try again';
  return new ApiError(failure(409, 'Conflict', message, { name, group: rt.group, kind: rt.plural }));
}

export function badRequest(message: string): ApiError {
  return new ApiError(failure(400, 'BadRequest', message));
}

export function invalid(rt: ResourceType, name: string, causes: StatusCause[]): ApiError {
  const text = causes.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`).join(', ');
  return new ApiError(
    failure(422, 'Invalid', `${rt.kind} "${name}" is invalid: ${text}`, {
      name,
      group: rt.group,
      kind: rt.kind,
      causes: causes.map((c) => ({ type: 'FieldValueInvalid', ...c })),
    }),
  );
}

export function expired(message: string): StatusObject {
  return failure(410, 'Expired', message);
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** A generic Status for an HTTP code (used by fault injection). */
export function statusForCode(code: number, reason?: string, message?: string): StatusObject {
  const r = reason ?? REASONS[code] ?? 'Unknown';
  return failure(code, r, message ?? `injected fault: ${code} ${r}`);
}

/**
 * What RBAC's authorizer answers (before routing, so also for resources that are not served), e.g.
 * `metarouters.metaprotocol.aeraki.io is forbidden: User "aeraki" cannot list resource "metarouters" in API group
 * "metaprotocol.aeraki.io" at the cluster scope`.
 */
export function rbacForbidden(r: {
  verb?: string;
  group?: string;
  resource?: string;
  namespace?: string;
  name?: string;
  token?: string;
}): StatusObject {
  const group = r.group ?? '';
  const resource = r.resource ?? '';
  const qualified = group ? `${resource}.${group}` : resource;
  const subject = r.name === undefined ? qualified : `${qualified} "${r.name}"`;
  const user = r.token ?? 'system:anonymous';
  const scope = r.namespace === undefined ? 'at the cluster scope' : `in the namespace "${r.namespace}"`;
  const message =
    `${subject} is forbidden: User "${user}" cannot ${r.verb ?? 'get'} resource "${resource}" ` +
    `in API group "${group}" ${scope}`;
  const details: NonNullable<StatusObject['details']> = { group, kind: resource };
  if (r.name !== undefined) details.name = r.name;
  return failure(403, 'Forbidden', message, details);
}
