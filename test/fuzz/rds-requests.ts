// Hostile and random RDS requests for the fuzz suites, as the bytes a client sends (then decoded by the server's
// own deserialisers): unknown type URLs, huge resource name lists, nonces of other streams, megabyte version
// strings, NACKs with megabyte reasons, random bytes and mutations of valid requests.
import { ROUTE_CONFIGURATION_TYPE } from '../../src/model/constants.ts';
import { encodeDeltaRequest, encodeSotwRequest } from '../../src/tools/rds-codec.ts';
import { mutate, type Rng } from './prng.ts';

export type Protocol = 'sotw' | 'delta';

/**
 * Problems the server names when it refuses a request: INVALID_ARGUMENT details, or RESOURCE_EXHAUSTED naming a
 * route-name budget or the message limit.
 */
export const REFUSAL =
  /cannot decode the (Delta)?DiscoveryRequest|unsupported type URL|is \d+ bytes; at most \d+|the budget is \d+ (bytes )?per (route name|stream|connection|identity) \(--rds-max-route-|Received message larger than max/;

const TYPE_URLS = [
  ROUTE_CONFIGURATION_TYPE,
  ROUTE_CONFIGURATION_TYPE,
  'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  'type.googleapis.com/envoy.config.route.v3.RouteConfiguration ',
  '',
  'x'.repeat(300),
];

function names(r: Rng, known: readonly string[]): string[] {
  switch (r.int(40)) {
    case 0:
      return Array.from({ length: 100_001 }, (_, i) => `n${i}`);
    case 1:
    case 7:
      return ['x'.repeat(2000)];
    case 2:
    case 3:
    case 4:
    case 5:
      return Array.from({ length: r.int(50) }, () => `${r.pick(known)}${r.int(3) === 0 ? '-typo' : ''}`);
    default:
      return Array.from({ length: r.int(known.length + 1) }, () => r.pick(known));
  }
}

function token(r: Rng, recent: readonly string[]): string {
  switch (r.int(8)) {
    case 0:
      return 'v'.repeat(1 << 20);
    case 1:
      return String(r.int(1000));
    case 2:
      return recent.length > 0 ? r.pick(recent) : '';
    default:
      return '';
  }
}

/** `initial_resource_versions`: many names with short versions, or one name with a hostile version. */
function initialVersions(
  r: Rng,
  known: readonly string[],
  recent: readonly string[],
): Record<string, string> {
  if (r.int(2) === 0) return { [r.pick(known)]: token(r, recent) };
  return Object.fromEntries(names(r, known).map((n) => [n, String(r.int(100))]));
}

/**
 * One request message of `protocol`: mostly well-formed but hostile, sometimes mutated or pure random bytes.
 * `recent` holds nonces and versions seen on other streams (replayed here).
 */
export function hostileRequest(
  r: Rng,
  protocol: Protocol,
  known: readonly string[],
  recent: string[],
): Buffer {
  const common = {
    ...(r.int(4) > 0 ? { node: { id: r.int(10) === 0 ? 'n'.repeat(5000) : `proxy-${r.int(5)}` } } : {}),
    typeUrl: r.pick(TYPE_URLS),
    responseNonce: token(r, recent),
    ...(r.int(6) === 0 ? { errorDetail: { code: 3, message: r.int(2) ? 'bad' : 'm'.repeat(1 << 20) } } : {}),
  };
  const message =
    protocol === 'sotw'
      ? encodeSotwRequest({ ...common, versionInfo: token(r, recent), resourceNames: names(r, known) })
      : encodeDeltaRequest({
          ...common,
          resourceNamesSubscribe: names(r, known),
          resourceNamesUnsubscribe: r.int(3) === 0 ? names(r, known) : [],
          ...(r.int(4) === 0 ? { initialResourceVersions: initialVersions(r, known, recent) } : {}),
        });
  switch (r.int(10)) {
    case 0:
      return r.bytes(r.int(64));
    case 1:
    case 2:
      return mutate(r, message);
    default:
      return message;
  }
}
