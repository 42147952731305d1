/**
 * How the controller reads the failures of Kubernetes API calls (client-node 1.4), shared by every adapter: the HTTP
 * status of an error, the classes the adapters act on (404 not found, 403 forbidden, 409 conflict or already
 * exists, 410 gone), and the conversion of any failure into the write contract's SinkError (kit/write.ts).
 */
import { ApiException } from '@kubernetes/client-node';
import { isPlainObject } from '../../util/json.ts';
import { isTransientStatus, SinkError } from '../write.ts';

/** The HTTP status of a client-node error: ApiException's `code`, or the Watch error's `statusCode`. */
export function statusCodeOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  if (typeof e.code === 'number') return e.code;
  return typeof e.statusCode === 'number' ? e.statusCode : undefined;
}

/** The HTTP status of an API call's answer (client-node's ApiException); undefined for any other failure. */
export function apiStatusOf(err: unknown): number | undefined {
  return err instanceof ApiException ? err.code : undefined;
}

/** The API server answered 404: the object (or its resource) does not exist. */
export const isNotFound = (err: unknown): boolean => apiStatusOf(err) === 404;
/** The API server answered 403: RBAC forbids the call. */
export const isForbidden = (err: unknown): boolean => apiStatusOf(err) === 403;
/** The API server answered 409: a stale resourceVersion, or a create of a name that exists. */
export const isConflict = (err: unknown): boolean => apiStatusOf(err) === 409;
/** The API server answered 410: the resourceVersion asked for is too old (re-list). */
export const isGone = (err: unknown): boolean => apiStatusOf(err) === 410;

/** An HTTP error of the Kubernetes API as client-node throws it (ApiException): the status code and the raw body. */
interface ApiStatusError {
  readonly code: number;
  readonly body: unknown;
}

function isApiStatusError(err: unknown): err is ApiStatusError {
  return err instanceof Error && typeof (err as Partial<ApiStatusError>).code === 'number' && 'body' in err;
}

/** The `reason` of a Kubernetes Status body (a JSON string or an object). */
function statusReason(body: unknown): string | undefined {
  try {
    const parsed: unknown = typeof body === 'string' ? JSON.parse(body) : body;
    if (isPlainObject(parsed) && typeof parsed['reason'] === 'string') return parsed['reason'];
  } catch {
    // not JSON
  }
  return undefined;
}

/** Converts anything a Kubernetes API call throws into a SinkError. */
export function kubeSinkError(op: string, err: unknown): SinkError {
  if (isApiStatusError(err)) {
    const code = err.code;
    const reason = statusReason(err.body);
    // AlreadyExists on create: an object of that name exists without the `manager: Aeraki` label (else it
    // would have been listed and updated). It is not ours to overwrite; retrying cannot help.
    const foreign = reason === 'AlreadyExists';
    return new SinkError(
      `${op}: HTTP ${code}${reason ? ` ${reason}` : ''}${foreign ? ' (not managed by Aeraki)' : ''}`,
      {
        transient: isTransientStatus(code) && !foreign,
        code,
        ...(reason ? { reason } : {}),
        cause: err,
      },
    );
  }
  // Network failures (FetchError, ECONNREFUSED, resets) are transient.
  const message = err instanceof Error ? err.message : String(err);
  return new SinkError(`${op}: ${message}`, { transient: true, cause: err });
}
