/**
 * Specs of the networking.istio.io kinds (v1alpha3 = v1beta1 = v1): the fields the generators and the route
 * builder read, type-checked; unknown fields are ignored.
 * Reference: https://istio.io/latest/docs/reference/config/networking/
 */
import type {
  ConsistentHashLB,
  DestinationRuleSpec,
  GatewayPort,
  GatewayServer,
  GatewaySpec,
  HTTPMatchRequest,
  HTTPRoute,
  HTTPRouteDestination,
  LoadBalancerSettings,
  ServiceEntrySpec,
  ServicePort,
  Subset,
  TCPRoute,
  TrafficPolicy,
  VirtualServiceSpec,
} from '../objects.ts';
import {
  readDestinationField,
  readOptionalStringList,
  readStringMatchField,
  readStringMatchMap,
  readWorkloadSelector,
} from './common.ts';
import type { Fields, Raw } from './fields.ts';
import {
  readEndpoints,
  readHttpCookie,
  readHttpExtras,
  readPolicySettings,
  readTlsRoutes,
} from './istio-extras.ts';
import { hasErrors } from '../result.ts';
import { destinationRuleIssues, serviceEntryIssues } from '../validate/istio-entries.ts';
import { virtualServiceIssues } from '../validate/istio.ts';

function readServicePort(f: Fields, o: Raw, path: string): ServicePort | undefined {
  const number = f.port(o, 'number', `${path}.number`);
  if (number === undefined && (o['number'] === undefined || o['number'] === null)) {
    f.error(`${path}.number`, 'required field is missing');
  }
  const name = f.requiredString(o, 'name', `${path}.name`);
  const protocol = f.string(o, 'protocol', `${path}.protocol`);
  const targetPort = f.port(o, 'targetPort', `${path}.targetPort`);
  if (number === undefined || name === undefined) return undefined;
  return {
    number,
    name,
    ...(protocol !== undefined ? { protocol } : {}),
    ...(targetPort !== undefined ? { targetPort } : {}),
  };
}

export function readServiceEntrySpec(f: Fields, spec: Raw): ServiceEntrySpec {
  const location = f.string(spec, 'location', 'spec.location');
  const resolution = f.string(spec, 'resolution', 'spec.resolution');
  const exportTo = readOptionalStringList(f, spec, 'exportTo', 'spec.exportTo');
  const workloadSelector = readWorkloadSelector(f, spec, 'workloadSelector', 'spec.workloadSelector');
  const endpoints = readEndpoints(f, spec);
  const out: ServiceEntrySpec = {
    hosts: f.stringList(spec, 'hosts', 'spec.hosts'),
    addresses: f.stringList(spec, 'addresses', 'spec.addresses'),
    ports: f.objects(spec, 'ports', 'spec.ports', readServicePort),
    ...(location !== undefined ? { location } : {}),
    ...(resolution !== undefined ? { resolution } : {}),
    ...(exportTo !== undefined ? { exportTo } : {}),
    ...(workloadSelector !== undefined ? { workloadSelector } : {}),
    ...(endpoints !== undefined ? { endpoints } : {}),
  };
  if (!hasErrors(f.issues)) f.issues.push(...serviceEntryIssues(out, f.ref));
  return out;
}

function readHttpMatch(f: Fields, o: Raw, path: string): HTTPMatchRequest {
  const name = f.string(o, 'name', `${path}.name`);
  const method = readStringMatchField(f, o, 'method', `${path}.method`);
  const headers = readStringMatchMap(f, o, 'headers', `${path}.headers`);
  const port = f.port(o, 'port', `${path}.port`);
  return {
    ...(name !== undefined ? { name } : {}),
    ...(method !== undefined ? { method } : {}),
    ...(headers !== undefined ? { headers } : {}),
    ...(port !== undefined ? { port } : {}),
  };
}

function readRouteDestination(f: Fields, o: Raw, path: string): HTTPRouteDestination | undefined {
  const destination = readDestinationField(f, o, 'destination', `${path}.destination`);
  const weight = f.integer(o, 'weight', `${path}.weight`, 0, 2147483647);
  if (!destination) return undefined;
  return { destination, ...(weight !== undefined ? { weight } : {}) };
}

function readHttpRoute(f: Fields, o: Raw, path: string): HTTPRoute {
  const name = f.string(o, 'name', `${path}.name`);
  return {
    ...(name !== undefined ? { name } : {}),
    match: f.objects(o, 'match', `${path}.match`, readHttpMatch),
    route: f.objects(o, 'route', `${path}.route`, readRouteDestination),
    ...readHttpExtras(f, o, path),
  };
}

function readTcpRoute(f: Fields, o: Raw, path: string): TCPRoute {
  return {
    match: f.objectList(o, 'match', `${path}.match`, (m, p) => {
      const port = f.port(m, 'port', `${p}.port`);
      return port !== undefined ? { port } : {};
    }),
    route: f.objects(o, 'route', `${path}.route`, readRouteDestination),
  };
}

export function readVirtualServiceSpec(f: Fields, spec: Raw): VirtualServiceSpec {
  const exportTo = readOptionalStringList(f, spec, 'exportTo', 'spec.exportTo');
  const tls = readTlsRoutes(f, spec, readRouteDestination);
  const out: VirtualServiceSpec = {
    hosts: f.stringList(spec, 'hosts', 'spec.hosts'),
    gateways: f.stringList(spec, 'gateways', 'spec.gateways'),
    http: f.objects(spec, 'http', 'spec.http', readHttpRoute),
    tcp: f.objects(spec, 'tcp', 'spec.tcp', readTcpRoute),
    ...(tls !== undefined ? { tls } : {}),
    ...(exportTo !== undefined ? { exportTo } : {}),
  };
  if (!hasErrors(f.issues)) f.issues.push(...virtualServiceIssues(out, f.ref));
  return out;
}

function readConsistentHash(f: Fields, o: Raw, path: string): ConsistentHashLB {
  const httpHeaderName = f.string(o, 'httpHeaderName', `${path}.httpHeaderName`);
  const useSourceIp = f.boolean(o, 'useSourceIp', `${path}.useSourceIp`);
  const httpQueryParameterName = f.string(o, 'httpQueryParameterName', `${path}.httpQueryParameterName`);
  const httpCookie = readHttpCookie(f, o, path);
  return {
    ...(httpHeaderName !== undefined ? { httpHeaderName } : {}),
    ...(useSourceIp !== undefined ? { useSourceIp } : {}),
    ...(httpQueryParameterName !== undefined ? { httpQueryParameterName } : {}),
    ...(httpCookie !== undefined ? { httpCookie } : {}),
  };
}

function readTrafficPolicy(f: Fields, parent: Raw, path: string): TrafficPolicy | undefined {
  const tp = f.object(parent, 'trafficPolicy', path);
  if (!tp) return undefined;
  const connectionPool = readPolicySettings(f, tp, 'connectionPool', path);
  const outlierDetection = readPolicySettings(f, tp, 'outlierDetection', path);
  const settings = {
    ...(connectionPool ? { connectionPool } : {}),
    ...(outlierDetection ? { outlierDetection } : {}),
  };
  const lb = f.object(tp, 'loadBalancer', `${path}.loadBalancer`);
  if (!lb) return settings;
  const simple = f.string(lb, 'simple', `${path}.loadBalancer.simple`);
  const ch = f.object(lb, 'consistentHash', `${path}.loadBalancer.consistentHash`);
  const loadBalancer: LoadBalancerSettings = {
    ...(simple !== undefined ? { simple } : {}),
    ...(ch ? { consistentHash: readConsistentHash(f, ch, `${path}.loadBalancer.consistentHash`) } : {}),
  };
  return { loadBalancer, ...settings };
}

function readSubset(f: Fields, o: Raw, path: string): Subset | undefined {
  const name = f.requiredString(o, 'name', `${path}.name`);
  const labels = f.stringMap(o, 'labels', `${path}.labels`);
  const trafficPolicy = readTrafficPolicy(f, o, `${path}.trafficPolicy`);
  if (name === undefined) return undefined;
  return { name, labels, ...(trafficPolicy ? { trafficPolicy } : {}) };
}

export function readDestinationRuleSpec(f: Fields, spec: Raw): DestinationRuleSpec {
  const host = f.requiredString(spec, 'host', 'spec.host') ?? '';
  const trafficPolicy = readTrafficPolicy(f, spec, 'spec.trafficPolicy');
  const exportTo = readOptionalStringList(f, spec, 'exportTo', 'spec.exportTo');
  const out: DestinationRuleSpec = {
    host,
    subsets: f.objects(spec, 'subsets', 'spec.subsets', readSubset),
    ...(trafficPolicy ? { trafficPolicy } : {}),
    ...(exportTo !== undefined ? { exportTo } : {}),
  };
  if (!hasErrors(f.issues)) f.issues.push(...destinationRuleIssues(out, f.ref));
  return out;
}

function readGatewayServer(f: Fields, o: Raw, path: string): GatewayServer | undefined {
  const portObj = f.object(o, 'port', `${path}.port`);
  if (!portObj && (o['port'] === undefined || o['port'] === null))
    f.error(`${path}.port`, 'required field is missing');
  let port: GatewayPort | undefined;
  if (portObj) {
    const p = `${path}.port`;
    const number = f.port(portObj, 'number', `${p}.number`);
    if (number === undefined && portObj['number'] == null)
      f.error(`${p}.number`, 'required field is missing');
    const name = f.requiredString(portObj, 'name', `${p}.name`);
    const protocol = f.string(portObj, 'protocol', `${p}.protocol`);
    const targetPort = f.port(portObj, 'targetPort', `${p}.targetPort`);
    if (number !== undefined && name !== undefined) {
      port = {
        number,
        name,
        ...(protocol !== undefined ? { protocol } : {}),
        ...(targetPort !== undefined ? { targetPort } : {}),
      };
    }
  }
  const hosts = f.stringList(o, 'hosts', `${path}.hosts`);
  const name = f.string(o, 'name', `${path}.name`);
  if (!port) return undefined;
  return { port, hosts, ...(name !== undefined ? { name } : {}) };
}

export function readGatewaySpec(f: Fields, spec: Raw): GatewaySpec {
  return {
    servers: f.objects(spec, 'servers', 'spec.servers', readGatewayServer),
    selector: f.stringMap(spec, 'selector', 'spec.selector'),
  };
}
