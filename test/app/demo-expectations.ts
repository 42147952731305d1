// The EnvoyFilters a demo folder must render, worked out from the input objects alone (never from any output), by
// the rules of ../shared/aeraki-demos/README.md: every handled port of a Service or ServiceEntry gets an outbound
// filter per address and an inbound filter when the object selects workloads; every MetaProtocol Gateway port a
// MetaRouter binds and routes to gets a gateway filter.
import type { RawObject } from '../support/as-applied.ts';
import { isDeepStrictEqual } from 'node:util';

export interface ExpectedFilter {
  /** `Service ns/name`, `ServiceEntry ns/name` or `Gateway ns/name`. */
  readonly source: string;
  readonly portName: string;
  /** The protocol the port name selects (second segment, lower case). */
  readonly protocol: string;
  /** `<address>_<port>`, `0.0.0.0_<port>` (gateway) or `virtualInbound`. */
  readonly listener: string;
  /** virtualInbound only: the destination ports that satisfy it ('any' when targetPort is a name). */
  readonly inboundPorts?: readonly number[] | 'any';
  /** The EnvoyFilter's workload selector (none for sidecar outbound filters). */
  readonly selector?: Readonly<Record<string, string>>;
}

const HANDLED: ReadonlySet<string> = new Set([
  'metaprotocol',
  'dubbo',
  'thrift',
  'redis',
  'kafka',
  'zookeeper',
]);
const BUILTIN_CODECS: ReadonlySet<string> = new Set(['dubbo', 'thrift']);

export function describeExpected(e: ExpectedFilter): string {
  const where = e.inboundPorts ? `virtualInbound:${String(e.inboundPorts)}` : e.listener;
  return `${e.source} ${e.portName} → ${where}`;
}

function ref(o: RawObject): string {
  return `${o.kind} ${o.metadata?.namespace}/${o.metadata?.name}`;
}

function isService(o: RawObject): boolean {
  return o.apiVersion === 'v1' && o.kind === 'Service';
}

function isIstio(o: RawObject, kind: string): boolean {
  return o.kind === kind && String(o.apiVersion).startsWith('networking.istio.io/');
}

/** The protocol a port name selects when it is handled and (MetaProtocol) has a codec in `codecs`. */
function handledProtocol(name: unknown, codecs: ReadonlySet<string>): string | undefined {
  if (typeof name !== 'string') return undefined;
  const [, second, third] = name.split('-');
  const protocol = second?.toLowerCase();
  if (protocol === undefined || !HANDLED.has(protocol)) return undefined;
  if (protocol === 'metaprotocol' && (third === undefined || !codecs.has(third))) return undefined;
  return protocol;
}

function selectorOfEntry(o: RawObject): Record<string, string> | undefined {
  const labels = o.spec?.workloadSelector?.labels;
  if (labels && Object.keys(labels).length > 0) return labels;
  const annotation = o.metadata?.annotations?.workloadSelector;
  if (typeof annotation !== 'string') return undefined;
  const [key, value] = annotation.replace(/\s+/g, '').split(':');
  return value === undefined ? { app: key ?? '' } : { [key ?? '']: value };
}

interface PortView {
  readonly name: unknown;
  readonly number: number;
  readonly targetPort: unknown;
}

function expectPorts(
  source: string,
  ports: readonly PortView[],
  addresses: readonly string[],
  selector: Record<string, string> | undefined,
  codecs: ReadonlySet<string>,
): ExpectedFilter[] {
  const out: ExpectedFilter[] = [];
  for (const p of ports) {
    const protocol = handledProtocol(p.name, codecs);
    if (protocol === undefined) continue;
    const portName = String(p.name);
    for (const a of addresses) out.push({ source, portName, protocol, listener: `${a}_${p.number}` });
    if (!selector) continue;
    const inboundPorts =
      typeof p.targetPort === 'string'
        ? 'any'
        : [...new Set([p.number, ...(typeof p.targetPort === 'number' ? [p.targetPort] : [])])];
    out.push({ source, portName, protocol, listener: 'virtualInbound', inboundPorts, selector });
  }
  return out;
}

function gatewayExpectations(objects: readonly RawObject[], codecs: ReadonlySet<string>): ExpectedFilter[] {
  const out: ExpectedFilter[] = [];
  const routers = objects.filter((o) => o.kind === 'MetaRouter');
  for (const gw of objects.filter((o) => isIstio(o, 'Gateway'))) {
    const key = `${gw.metadata.namespace}/${gw.metadata.name}`;
    for (const server of gw.spec?.servers ?? []) {
      const port = server.port ?? {};
      if (handledProtocol(port.name, codecs) !== 'metaprotocol') continue;
      const bound = routers.some(
        (mr) =>
          (mr.spec?.gateways ?? []).some(
            (g: string) => (g.includes('/') ? g : `${mr.metadata.namespace}/${g}`) === key,
          ) &&
          (mr.spec?.routes ?? []).some((r: RawObject) =>
            (r.route ?? []).some((d: RawObject) => d.destination?.port?.number === port.number),
          ),
      );
      if (!bound) continue;
      out.push({
        source: ref(gw),
        portName: port.name,
        protocol: 'metaprotocol',
        listener: `0.0.0.0_${port.number}`,
        selector: gw.spec.selector ?? {},
      });
    }
  }
  return out;
}

/** Every EnvoyFilter the objects of one folder call for, deduplicated, in input order. */
export function expectedFilters(objects: readonly RawObject[]): ExpectedFilter[] {
  const codecs = new Set(BUILTIN_CODECS);
  for (const o of objects)
    if (o.kind === 'ApplicationProtocol' && o.spec?.protocol) codecs.add(o.spec.protocol);
  const out: ExpectedFilter[] = [];
  for (const o of objects) {
    if (isService(o)) {
      const ip = o.spec?.clusterIP;
      const addresses = o.spec?.type !== 'ExternalName' && ip && ip !== 'None' ? [ip] : [];
      const selector =
        o.spec?.selector && Object.keys(o.spec.selector).length > 0 ? o.spec.selector : undefined;
      const ports = (o.spec?.ports ?? []).map((p: RawObject) => ({
        name: p.name,
        number: p.port,
        targetPort: p.targetPort,
      }));
      out.push(...expectPorts(ref(o), ports, addresses, selector, codecs));
    } else if (isIstio(o, 'ServiceEntry')) {
      const ports = (o.spec?.ports ?? []).map((p: RawObject) => ({
        name: p.name,
        number: p.number,
        targetPort: p.targetPort,
      }));
      out.push(...expectPorts(ref(o), ports, o.spec?.addresses ?? [], selectorOfEntry(o), codecs));
    }
  }
  out.push(...gatewayExpectations(objects, codecs));
  const seen = new Set<string>();
  return out.filter((e) => {
    const k = `${describeExpected(e)} ${JSON.stringify(e.selector ?? {})}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Whether one rendered EnvoyFilter satisfies `e`. */
export function satisfies(filter: RawObject, e: ExpectedFilter): boolean {
  if (filter.kind !== 'EnvoyFilter') return false;
  const selector = filter.spec?.workloadSelector?.labels;
  if (!isDeepStrictEqual(selector ?? null, e.selector ?? null)) return false;
  return (filter.spec?.configPatches ?? []).some((p: RawObject) => {
    const listener = p.match?.listener;
    if (listener?.name !== e.listener) return false;
    if (e.inboundPorts === undefined || e.inboundPorts === 'any') return true;
    return e.inboundPorts.includes(listener.filterChain?.destinationPort);
  });
}
