/**
 * Specs of the metaprotocol.aeraki.io/v1alpha1 kinds, read strictly: a field the CRD does not define (at any depth,
 * FIELDS below) and a value of the wrong JSON type are errors of the object, which is then not applied (a structural
 * CRD prunes such fields in a cluster, so a typo such as `mirrorPercentag` would silently mirror everything).
 * Besides types, the MetaRouter checks the rules whose
 * absence would crash or silently corrupt generation (D8: every token bucket needs fillInterval, tokensPerFill
 * and maxTokens; globalRateLimit needs domain and rateLimitService; requestTimeout is optional). A spec that reads
 * without errors then goes through the webhook rules of validate/metarouter.ts (spec aeraki-periphery.md §7.3),
 * whose errors reject the object and whose warnings travel with it.
 */
import type {
  ApplicationProtocolSpec,
  GlobalRateLimit,
  KeyValue,
  LocalRateLimit,
  LocalRateLimitCondition,
  MetaRoute,
  MetaRouteDestination,
  MetaRouteMatch,
  MetaRouterSpec,
  RateLimitDescriptor,
  StringMatch,
  TokenBucket,
} from '../objects.ts';
import { readDestination, readDestinationField, readStringMatch } from './common.ts';
import { describe, type Fields, type Raw } from './fields.ts';
import { rejectUnknownFields, rejectUnknownFieldsAt } from './strict.ts';
import { hasErrors } from '../result.ts';
import { applicationProtocolIssues, metaRouterIssues } from '../validate/metarouter.ts';
import { isPlainObject } from '../../util/json.ts';

/**
 * The fields of each message, as Aeraki's API defines them (aeraki-mesh/api metaprotocol/v1alpha1:
 * metaprotocol_metarouter.proto, metaprotocol_application_protocol.proto; manifests/crd-*.yaml say the same), in
 * their JSON names. PortSelector's `name` is reserved there, so it is unknown here too.
 */
const FIELDS = {
  MetaRouter: ['hosts', 'gateways', 'routes', 'localRateLimit', 'globalRateLimit', 'exportTo'],
  MetaRoute: ['name', 'match', 'route', 'mirror', 'mirrorPercentage', 'requestMutation', 'responseMutation'],
  MetaRouteMatch: ['attributes'],
  StringMatch: ['exact', 'prefix', 'regex'],
  MetaRouteDestination: ['destination', 'weight'],
  Destination: ['host', 'subset', 'port'],
  PortSelector: ['number'],
  Percent: ['value'],
  KeyValue: ['key', 'value'],
  LocalRateLimit: ['tokenBucket', 'conditions'],
  TokenBucket: ['maxTokens', 'tokensPerFill', 'fillInterval'],
  Condition: ['match', 'tokenBucket'],
  GlobalRateLimit: ['match', 'domain', 'requestTimeout', 'denyOnFail', 'rateLimitService', 'descriptors'],
  Descriptor: ['property', 'descriptorKey'],
  ApplicationProtocol: ['protocol', 'codec'],
} as const satisfies Record<string, readonly string[]>;

/** Rejects the unknown fields of the Destination at `parent[key]` and of its port. */
function checkDestination(f: Fields, parent: Raw, key: string, path: string): void {
  rejectUnknownFieldsAt(f, parent, key, path, FIELDS.Destination);
  const d = parent[key];
  if (isPlainObject(d)) rejectUnknownFieldsAt(f, d, 'port', `${path}.port`, FIELDS.PortSelector);
}

function readMatch(f: Fields, parent: Raw, key: string, path: string): MetaRouteMatch | undefined {
  const o = f.object(parent, key, path);
  if (!o) return undefined;
  rejectUnknownFields(f, o, FIELDS.MetaRouteMatch, path);
  const attrs = f.object(o, 'attributes', `${path}.attributes`);
  const attributes: Record<string, StringMatch | null> = {};
  for (const name of Object.keys(attrs ?? {}).sort()) {
    const v = attrs?.[name];
    const p = `${path}.attributes.${name}`;
    if (v === null || v === undefined) attributes[name] = null;
    else if (isPlainObject(v)) {
      rejectUnknownFields(f, v, FIELDS.StringMatch, p);
      attributes[name] = readStringMatch(f, v, p);
    } else f.error(p, `expected an object, got ${describe(v)}`);
  }
  return { attributes };
}

function readKeyValue(f: Fields, o: Raw, path: string): KeyValue | undefined {
  rejectUnknownFields(f, o, FIELDS.KeyValue, path);
  const key = f.requiredString(o, 'key', `${path}.key`);
  const value = f.requiredString(o, 'value', `${path}.value`);
  return key !== undefined && value !== undefined ? { key, value } : undefined;
}

function readRouteDestination(f: Fields, o: Raw, path: string): MetaRouteDestination | undefined {
  rejectUnknownFields(f, o, FIELDS.MetaRouteDestination, path);
  checkDestination(f, o, 'destination', `${path}.destination`);
  const destination = readDestinationField(f, o, 'destination', `${path}.destination`);
  const weight = f.uint32(o, 'weight', `${path}.weight`);
  if (!destination) return undefined;
  return { destination, ...(weight !== undefined ? { weight } : {}) };
}

function readRoute(f: Fields, o: Raw, path: string): MetaRoute {
  rejectUnknownFields(f, o, FIELDS.MetaRoute, path);
  checkDestination(f, o, 'mirror', `${path}.mirror`);
  rejectUnknownFieldsAt(f, o, 'mirrorPercentage', `${path}.mirrorPercentage`, FIELDS.Percent);
  const name = f.string(o, 'name', `${path}.name`);
  const match = readMatch(f, o, 'match', `${path}.match`);
  const mirrorObj = f.object(o, 'mirror', `${path}.mirror`);
  const mirror = mirrorObj ? readDestination(f, mirrorObj, `${path}.mirror`) : undefined;
  const mp = f.object(o, 'mirrorPercentage', `${path}.mirrorPercentage`);
  const mpValue = mp ? f.number(mp, 'value', `${path}.mirrorPercentage.value`) : undefined;
  // Negative: Aeraki's controller converts it to an unsigned number of its own choosing; 0 and above 100: admission
  // only (validate/metarouter.ts).
  if (mpValue !== undefined && mpValue < 0) {
    f.error(`${path}.mirrorPercentage.value`, `must be between 0 and 100, got ${mpValue}`);
  }
  if (mirror && mirror.host === '') f.error(`${path}.mirror.host`, 'a mirror host is required');
  const route = f.objects(o, 'route', `${path}.route`, readRouteDestination);
  const rawRoute = o['route'];
  if (route.length === 0 && !(Array.isArray(rawRoute) && rawRoute.length > 0)) {
    f.error(`${path}.route`, 'at least one destination is required');
  }
  route.forEach((d, j) => {
    if (d.destination.host === '') {
      f.error(`${path}.route[${j}].destination.host`, 'a destination host is required');
    }
  });
  return {
    ...(name !== undefined ? { name } : {}),
    ...(match ? { match } : {}),
    route,
    ...(mirror ? { mirror } : {}),
    ...(mp ? { mirrorPercentage: mpValue !== undefined ? { value: mpValue } : {} } : {}),
    requestMutation: f.objectList(o, 'requestMutation', `${path}.requestMutation`, (kv, p) =>
      readKeyValue(f, kv, p),
    ),
    responseMutation: f.objectList(o, 'responseMutation', `${path}.responseMutation`, (kv, p) =>
      readKeyValue(f, kv, p),
    ),
  };
}

/** D8: all three fields are required. */
function readTokenBucket(f: Fields, parent: Raw, path: string): TokenBucket | undefined {
  const o = f.object(parent, 'tokenBucket', path);
  if (!o) return undefined;
  rejectUnknownFields(f, o, FIELDS.TokenBucket, path);
  const maxTokens = f.uint32(o, 'maxTokens', `${path}.maxTokens`);
  const tokensPerFill = f.uint32(o, 'tokensPerFill', `${path}.tokensPerFill`);
  const fillInterval = f.duration(o, 'fillInterval', `${path}.fillInterval`);
  for (const [key, value] of [
    ['maxTokens', maxTokens],
    ['tokensPerFill', tokensPerFill],
    ['fillInterval', fillInterval],
  ] as const) {
    if (value === undefined && (o[key] === undefined || o[key] === null)) {
      f.error(
        `${path}.${key}`,
        'required field is missing (a token bucket needs maxTokens, tokensPerFill and fillInterval)',
      );
    }
  }
  if (maxTokens === undefined || tokensPerFill === undefined || fillInterval === undefined) return undefined;
  return { maxTokens, tokensPerFill, fillInterval };
}

function readLocalRateLimit(f: Fields, spec: Raw): LocalRateLimit | undefined {
  const o = f.object(spec, 'localRateLimit', 'spec.localRateLimit');
  if (!o) return undefined;
  rejectUnknownFields(f, o, FIELDS.LocalRateLimit, 'spec.localRateLimit');
  const tokenBucket = readTokenBucket(f, o, 'spec.localRateLimit.tokenBucket');
  const conditions = f.objectList(o, 'conditions', 'spec.localRateLimit.conditions', (c, p) => {
    rejectUnknownFields(f, c, FIELDS.Condition, p);
    const match = readMatch(f, c, 'match', `${p}.match`);
    const bucket = readTokenBucket(f, c, `${p}.tokenBucket`);
    const cond: LocalRateLimitCondition = {
      ...(match ? { match } : {}),
      ...(bucket ? { tokenBucket: bucket } : {}),
    };
    return cond;
  });
  return { ...(tokenBucket ? { tokenBucket } : {}), conditions };
}

function readGlobalRateLimit(f: Fields, spec: Raw): GlobalRateLimit | undefined {
  const o = f.object(spec, 'globalRateLimit', 'spec.globalRateLimit');
  if (!o) return undefined;
  const p = 'spec.globalRateLimit';
  rejectUnknownFields(f, o, FIELDS.GlobalRateLimit, p);
  const match = readMatch(f, o, 'match', `${p}.match`);
  const domain = f.requiredString(o, 'domain', `${p}.domain`) ?? '';
  const requestTimeout = f.duration(o, 'requestTimeout', `${p}.requestTimeout`);
  const denyOnFail = f.boolean(o, 'denyOnFail', `${p}.denyOnFail`);
  const rateLimitService = f.requiredString(o, 'rateLimitService', `${p}.rateLimitService`) ?? '';
  const descriptors = f.objectList(
    o,
    'descriptors',
    `${p}.descriptors`,
    (d, dp): RateLimitDescriptor | undefined => {
      rejectUnknownFields(f, d, FIELDS.Descriptor, dp);
      const property = f.requiredString(d, 'property', `${dp}.property`);
      const descriptorKey = f.requiredString(d, 'descriptorKey', `${dp}.descriptorKey`);
      return property !== undefined && descriptorKey !== undefined ? { property, descriptorKey } : undefined;
    },
  );
  return {
    ...(match ? { match } : {}),
    domain,
    ...(requestTimeout !== undefined ? { requestTimeout } : {}),
    ...(denyOnFail !== undefined ? { denyOnFail } : {}),
    rateLimitService,
    descriptors,
  };
}

export function readMetaRouterSpec(f: Fields, spec: Raw): MetaRouterSpec {
  rejectUnknownFields(f, spec, FIELDS.MetaRouter, 'spec');
  const localRateLimit = readLocalRateLimit(f, spec);
  const globalRateLimit = readGlobalRateLimit(f, spec);
  const out: MetaRouterSpec = {
    hosts: f.stringList(spec, 'hosts', 'spec.hosts'),
    gateways: f.stringList(spec, 'gateways', 'spec.gateways'),
    exportTo: f.stringList(spec, 'exportTo', 'spec.exportTo'),
    routes: f.objects(spec, 'routes', 'spec.routes', readRoute),
    ...(localRateLimit ? { localRateLimit } : {}),
    ...(globalRateLimit ? { globalRateLimit } : {}),
  };
  if (!hasErrors(f.issues)) f.issues.push(...metaRouterIssues(out, f.ref));
  return out;
}

export function readApplicationProtocolSpec(f: Fields, spec: Raw): ApplicationProtocolSpec {
  rejectUnknownFields(f, spec, FIELDS.ApplicationProtocol, 'spec');
  const protocol = f.requiredString(spec, 'protocol', 'spec.protocol') ?? '';
  const codec = f.requiredString(spec, 'codec', 'spec.codec') ?? '';
  if (spec['codec'] === '') f.error('spec.codec', 'must not be empty');
  const out: ApplicationProtocolSpec = { protocol, codec };
  if (!hasErrors(f.issues)) f.issues.push(...applicationProtocolIssues(out, f.ref));
  return out;
}
